#include "common/exercise/student_run.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/exercise/child_process.hpp"
#include "common/exercise/confinement.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/student_library.hpp"
#include "common/report/json_field.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxRequestBytes = 1u << 20;

std::string self_executable() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw RuntimeError("cannot find this program's own file (/proc/self/exe) to run the exercise");
  return std::string(path, static_cast<std::size_t>(n));
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

StudentRun from_frame(const std::string& frame, const std::string& function) {
  StudentRun run;
  nlohmann::json doc;
  try {
    doc = parse_untrusted_json(frame, "the exercise's result");
  } catch (const UsageError&) {
    run.verdict = StudentVerdict::exited_early;
    run.words = msg("your {function} left the bench's result unreadable (did your code write to descriptor 3?)",
                    arg("function", function));
    return run;
  }
  if (doc.contains("result")) {
    run.result = doc["result"];
    return run;
  }
  const JsonField failure = JsonField(doc, "").at("failure");
  const std::string kind = failure.at("kind").text();
  run.words = read_message(failure.at("words"));
  run.sticky = failure.at("sticky").flag();
  run.verdict = kind == "load" ? StudentVerdict::load_error
                : kind == "waived" ? StudentVerdict::waived
                                   : StudentVerdict::cuda_error;
  return run;
}

}  // namespace

namespace {
std::optional<StudentFailure> g_student_failure;  // the child runs the student's code on one thread
}  // namespace

void note_student_failure(const char* call, int error, const char* file, int line) {
  if (g_student_failure) return;  // the first one is the cause
  g_student_failure = StudentFailure{call != nullptr ? call : "?",
                                     fmt::format("{}:{}", file != nullptr ? file : "?", line), error};
}

std::optional<StudentFailure> student_failure() { return g_student_failure; }

Message student_failure_words(const StudentFailure& failure, const std::string& function, const char* error_name) {
  return msg("your {function}: {call} failed with {error} at {where}", arg("function", function),
             arg("call", failure.call), arg("error", std::string(error_name != nullptr ? error_name : "?")),
             arg("where", failure.where));
}

std::string child_result_frame(const nlohmann::json& result) { return nlohmann::json{{"result", result}}.dump(); }

std::string child_failure_frame(const std::string& kind, const Message& words, bool sticky) {
  nlohmann::json w;
  to_json(w, words);
  return nlohmann::json{{"failure", {{"kind", kind}, {"words", w}, {"sticky", sticky}}}}.dump();
}

StudentRun judge_child(const ChildOutcome& outcome, const std::string& function, double limit_s) {
  StudentRun run;
  run.output = outcome.output;
  run.wall_s = outcome.wall_s;
  switch (outcome.ending) {
    case ChildEnding::not_started:
      throw RuntimeError(msg("the exercise's process did not start: {why}", arg("why", outcome.start_error)));
    case ChildEnding::interrupted:
      throw InterruptedError("interrupted");
    case ChildEnding::timed_out:
      run.verdict = StudentVerdict::timed_out;
      run.words = msg("your {function} did not finish within {limit} s, so it was killed (a loop that never ends, or "
                      "a wait for work that never comes?)",
                      arg("function", function), arg("limit", fmt::format("{:g}", limit_s)));
      return run;
    case ChildEnding::signaled:
      run.verdict = StudentVerdict::crashed;
      run.words = msg("your {function} crashed with {signal}", arg("function", function),
                      arg("signal", signal_name(outcome.signal)));
      return run;
    case ChildEnding::exited:
      break;
  }
  if (outcome.result.empty() || outcome.result_cut) {
    run.verdict = StudentVerdict::exited_early;
    run.words = msg("your code ended the process (exit status {status}) before the bench had its results: no exit() "
                    "in an exercise",
                    arg("status", outcome.exit_code));
    return run;
  }
  StudentRun framed = from_frame(outcome.result, function);
  framed.output = outcome.output;
  framed.wall_s = outcome.wall_s;
  return framed;
}

StudentRun run_student(const StudentBuild& build, const std::string& request, const std::string& visible_device,
                       const std::string& function) {
  ChildSpec spec;
  spec.argv = {self_executable(), kExerciseChildCommand, build.exercise_id, build.library_path};
  if (!visible_device.empty()) spec.environment.emplace_back("CUDA_VISIBLE_DEVICES", visible_device);
  if (!build.confine_to.empty()) {
    for (const char* name : {kConfineEnvironment, "HOME", "TMPDIR"}) spec.environment.emplace_back(name, build.confine_to);
  }
  spec.input = request;
  spec.time_limit_s = build.time_limit_s;
  return judge_child(run_child(spec), function, build.time_limit_s);
}

int exercise_child_main(int argc, char** argv) {
  drop_to_the_students_rights();
  auto fail = [](const std::string& kind, const Message& words, bool sticky) {
    write_all(kChildResultFd, child_failure_frame(kind, words, sticky));
    std::fflush(nullptr);
    ::_exit(0);
  };
  if (argc != 4) fail("usage", "usage: cudalab __exercise-child EXERCISE LIBRARY (the lab starts this itself)", false);
  const ExerciseDescription* exercise = find_exercise(argv[2]);
  if (exercise == nullptr || exercise->serve == nullptr) fail("usage", msg("no exercise {name}", arg("name", std::string(argv[2]))), false);
  std::string request;
  char buffer[65536];
  for (ssize_t n; (n = ::read(0, buffer, sizeof buffer)) > 0;) {
    request.append(buffer, static_cast<std::size_t>(n));
    if (request.size() > kMaxRequestBytes) fail("usage", "the exercise's request is too large", false);
  }
  // The grader's re-run: confined before any of the student's code is loaded (confinement.hpp).
  if (const char* workspace = std::getenv(kConfineEnvironment); workspace != nullptr && *workspace != '\0') {
    if (const Message problem = confine_to(workspace); !problem.empty()) {
      fail("waived", msg("the grader's re-run could not confine the code: {why}", arg("why", problem)), false);
    }
  }
  try {
    const StudentLibrary library(argv[3], exercise->interface_name, exercise->interface_version);
    const std::string result = exercise->serve(request, library);
    write_all(kChildResultFd, "{\"result\":" + result + "}");
  } catch (const StudentCudaError& e) {
    fail("cuda", words_of(e), e.sticky);
  } catch (const StudentLoadError& e) {
    fail("load", words_of(e), false);
  } catch (const WaivedError& e) {
    fail("waived", words_of(e), false);
  } catch (const std::exception& e) {
    fail("cuda", words_of(e), false);
  }
  std::fflush(nullptr);
  // Not exit(): two CUDA runtimes tearing themselves down at exit is not the student's verdict.
  ::_exit(0);
}

}  // namespace cudalab
