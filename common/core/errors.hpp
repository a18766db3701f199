// The few ways a cudalab run can end, as exception types, and the one table that maps them to
// exit codes. Lessons throw; cli/app.cpp (run_cli) catches each kind and returns its code, and
// cli/output.cpp (exit_code_for) maps a finished report to one.
#pragma once

#include <stdexcept>
#include <string>

namespace cudalab {

// Documented in README.md and in the --help footer. Keep the three in step.
enum class ExitCode : int {
  success = 0,
  verify_failed = 1,   // a verify check failed (or an expect check under --strict); a saved run
                       // failed verify or was modified, or compare found a headline out of tolerance
  usage = 2,           // bad flag, bad value, bad config file, unwritable output path
  runtime = 3,         // a CUDA or CUPTI call failed, or the device ran out of memory
  waived = 77,         // no usable CUDA device or driver, or a feature the device lacks
  interrupted = 130,   // Ctrl-C (128 + SIGINT)
};

// Bad input from the user: one line that names the flag and what is allowed.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Nothing to run on: no driver, no device, device index out of range, feature missing.
struct WaivedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The machine has no GPU to run on at all (no driver, a driver too old, no device): a student
// can still read the lesson's reference run, and the CLI says how.
struct NoGpuError : WaivedError {
  using WaivedError::WaivedError;
};

// A CUDA / CUPTI / system call failed while the lesson ran.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The run was interrupted (SIGINT) and stopped at a safe point.
struct InterruptedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr int to_int(ExitCode code) { return static_cast<int>(code); }

// One line per code, for --help and README.
const char* exit_code_table();

}  // namespace cudalab
