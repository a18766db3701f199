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

#include "common/core/errors.hpp"
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

// The student's run as an exercise's report reads it: the exercise's own result when the code ran
// (`parse` reads it and throws UsageError when it is not one; `timed` says whether it holds a
// timing), else the verdict that ended it.
template <class Result>
struct StudentOutcome {
  bool ran = false;
  Message verdict;  // why it did not run
  Result result;
};
template <class Result, class Parse, class Timed>
StudentOutcome<Result> outcome_of(const StudentRun& student, const std::string& function, Parse parse, Timed timed);

// What a student's CUDALAB_CHECK reported (every interface header's `failed` hook calls
// note_student_failure): the first failure in this process, asked after each call of theirs.
struct StudentFailure {
  std::string call;   // the call's text
  std::string where;  // "file:line"
  int error = 0;      // its cudaError_t
};
void note_student_failure(const char* call, int error, const char* file, int line);
std::optional<StudentFailure> student_failure();
// "your pipeline(): cudaMemcpyAsync(...) failed with cudaErrorInvalidValue at file:line"
Message student_failure_words(const StudentFailure& failure, const std::string& function, const char* error_name);

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

// ---- implementation ----------------------------------------------------------------------

template <class Result, class Parse, class Timed>
StudentOutcome<Result> outcome_of(const StudentRun& student, const std::string& function, Parse parse, Timed timed) {
  StudentOutcome<Result> o;
  if (student.verdict != StudentVerdict::ran) {
    o.verdict = student.words;
    return o;
  }
  try {
    o.result = parse(student.result);
    o.ran = timed(o.result);
    if (!o.ran) o.verdict = msg("your {function} ran, but the bench timed nothing", arg("function", function));
  } catch (const Error& e) {
    o.verdict = msg("the bench could not read what your {function} run brought back: {why}", arg("function", function),
                    arg("why", words_of(e)));
  }
  return o;
}

}  // namespace cudalab
