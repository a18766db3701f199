// A child process with a time limit: how a student's code runs. A crash, a hang or a CUDA error
// in it ends the child, never the lab; the lab's own CUDA context lives in the parent, which the
// student's code never touches. The child's stdout and stderr are captured (a student's printf
// is shown, bounded), its stdin carries the request, and one more pipe (the child's fd 3) carries
// its result. The child runs in a process group of its own, killed whole at the limit, and with
// no new privileges: exec'ing a setgid cudalab from it grants no group (issue 46's class seal).
// No CUDA here: the same runner drives the unit tests' fake children.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// The descriptor a child writes its result to.
inline constexpr int kChildResultFd = 3;

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::vector<std::pair<std::string, std::string>> environment;  // set in the child's (beside ours)
  std::string input;                      // written to its stdin, which is then closed
  double time_limit_s = 10;               // then the whole process group is killed
  std::size_t output_limit = 64 << 10;    // stdout and stderr together: the last bytes are kept
  std::size_t result_limit = 64u << 20;   // the result pipe: more is cut off and flagged
};

enum class ChildEnding {
  exited,       // exit_code holds its status
  signaled,     // signal holds the signal that ended it (a crash: SIGSEGV, SIGABRT, SIGBUS, ...)
  timed_out,    // killed at the time limit
  interrupted,  // the parent got Ctrl-C or SIGTERM: the child was killed, the parent unwinds
  not_started,  // fork or exec failed: start_error says why
};

struct ChildOutcome {
  ChildEnding ending = ChildEnding::not_started;
  long pid = 0;  // counted as this run's own (core/run_children.hpp): its GPU work is no tenant's
  int exit_code = 0;
  int signal = 0;
  double wall_s = 0;
  std::string result;  // what it wrote to kChildResultFd, up to result_limit
  bool result_cut = false;
  std::string output;  // the last output_limit bytes of its stdout and stderr, interleaved
  Message start_error;
};

// Runs the child to its end (or its limit) and returns how it ended. Never throws for anything
// the child does; throws RuntimeError only when the parent cannot make a pipe.
ChildOutcome run_child(const ChildSpec& spec);

// "SIGSEGV", "SIGKILL", ... (data), or "signal N".
std::string signal_name(int signal);

}  // namespace cudalab
