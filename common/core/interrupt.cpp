#include "common/core/interrupt.hpp"

#include <unistd.h>

#include <csignal>

#include "common/core/errors.hpp"

namespace cudalab {
namespace {
volatile std::sig_atomic_t g_interrupted = 0;
volatile std::sig_atomic_t g_exit_at_once = 0;
// First Ctrl-C: ask the lesson to stop at its next measurement and unwind (RAII frees the GPU
// memory, streams and pinned buffers). A second Ctrl-C means "now": leave at once; the driver
// reclaims the device resources of an exiting process.
extern "C" void on_sigint(int) {
  if (g_interrupted != 0 || g_exit_at_once != 0) _exit(130);
  g_interrupted = 1;
}
}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
}

bool interrupted() { return g_interrupted != 0; }

void clear_interrupted() { g_interrupted = 0; }

void exit_on_interrupt(bool at_once) { g_exit_at_once = at_once ? 1 : 0; }

void throw_if_interrupted() {
  if (interrupted()) throw InterruptedError("interrupted");
}

}  // namespace cudalab
