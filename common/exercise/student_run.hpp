// Running the student's code, from the lab's side. The child is this same binary, started as
//
//   cudalab __exercise-child EXERCISE LIBRARY      (request on stdin, result on fd 3)
//
// with only the GPU being measured visible to it (CUDA_VISIBLE_DEVICES), the student's rights and a
// time limit. The lab process holds the GPU turn and its own context throughout; whatever the
// student's code does, the child ends and the turn goes back when the lesson's run ends. How the
// child ended becomes one verdict, in the student's terms: it ran, crashed (the signal), hung
// (killed at the limit the report names), hit a CUDA error (the call and the error's name, a
// sticky one said so), could not be loaded, or ended the process early.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/core/message.hpp"
#include "common/exercise/exercise_lesson.hpp"

namespace cudalab {

inline constexpr const char* kExerciseChildCommand = "__exercise-child";

enum class StudentVerdict { ran, crashed, timed_out, cuda_error, load_error, exited_early, waived };

struct StudentRun {
  StudentVerdict verdict = StudentVerdict::ran;
  Message words;           // one line for everything but `ran`
  bool sticky = false;     // a CUDA error that left the child's context unusable
  nlohmann::json result;   // the exercise's own result, when it ran
  std::string output;      // the last of what the student's code printed (stdout and stderr)
  double wall_s = 0;
};

// `function` names the student's function in the verdicts ("pipeline()").
StudentRun run_student(const StudentBuild& build, const std::string& request, const std::string& visible_device,
                       const std::string& function);

// The child's whole life (main.cpp calls it first, before anything else reads argv or a file):
// gives up any privilege, loads the student's library, serves the request, writes the result to
// fd 3. Returns the process's exit code.
int exercise_child_main(int argc, char** argv);

// What a child writes on fd 3, either way (child and parent agree through these two).
std::string child_result_frame(const nlohmann::json& result);
std::string child_failure_frame(const std::string& kind, const Message& words, bool sticky);
// How the parent reads a child's outcome; split out so the unit tests drive it with made-up ones.
struct ChildOutcome;
StudentRun judge_child(const ChildOutcome& outcome, const std::string& function, double limit_s);

}  // namespace cudalab
