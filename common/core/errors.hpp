// The few ways a cudalab run can end, as exception types, and the one table that maps them to
// exit codes. Lessons throw; cli/app.cpp (run_cli) catches whatever a command throws and
// cli/failure.cpp (failure_of) maps each kind to its line and code, and cli/output.cpp
// (exit_code_for) maps a finished report to one.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "common/core/message.hpp"

namespace cudalab {

// Documented in README.md and in the --help footer. Keep the three in step.
enum class ExitCode : int {
  success = 0,
  verify_failed = 1,   // a verify check failed (or an expect check under --strict); a saved run
                       // failed verify or was modified, or compare found a headline out of tolerance;
                       // an exercise's file did not compile, or its code did not run to its end
  usage = 2,           // bad flag, bad value, bad config file, unwritable output path
  runtime = 3,         // a CUDA or CUPTI call failed, or the device ran out of memory
  waived = 77,         // no usable CUDA device or driver, or a feature the device lacks
  interrupted = 130,   // Ctrl-C (128 + SIGINT)
  terminated = 143,    // SIGTERM (128 + SIGTERM), as `timeout` sends: as 130 otherwise
};

// An error whose words are a template with named arguments (message.hpp), translated when it is
// printed (cli/failure.cpp). what() is its English. An error built from a finished English string
// carries no template: it is printed as it is in every language.
class Error : public std::runtime_error {
 public:
  Error(const char* templ) : Error(Message(templ)) {}  // NOLINT: a literal is a template
  explicit Error(Message words) : std::runtime_error(words.en()), words_(std::move(words)) {}
  explicit Error(const std::string& english) : std::runtime_error(english) {}
  // The template and its arguments; none for an error built from finished English.
  const std::optional<Message>& words() const { return words_; }

 private:
  std::optional<Message> words_;
};

// Bad input from the user: one line that names the flag and what is allowed.
struct UsageError : Error {
  using Error::Error;
};

// Nothing to run on: no driver, no device, device index out of range, feature missing.
struct WaivedError : Error {
  using Error::Error;
};

// The machine has no GPU to run on at all (no driver, a driver too old, no device): a student
// can still read the lesson's reference run, and the CLI says how.
struct NoGpuError : WaivedError {
  using WaivedError::WaivedError;
};

// A CUDA / CUPTI / system call failed while the lesson ran.
struct RuntimeError : Error {
  using Error::Error;
};

// The run was interrupted (SIGINT) and stopped at a safe point.
struct InterruptedError : Error {
  using Error::Error;
};

// The words of any exception: its template when it is one of ours and has one, else what() as
// data (CLI11's parse errors, the standard library's).
Message words_of(const std::exception& e);

// The system's own words for an errno value ("No such file or directory"), as words: the text is
// the same in every run, so the catalogue translates the usual ones; any other reads as it is.
Message errno_words(int err);

constexpr int to_int(ExitCode code) { return static_cast<int>(code); }

// One line per code, for --help and README.
const char* exit_code_table();

}  // namespace cudalab
