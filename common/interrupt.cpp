#include "interrupt.hpp"

#include <csignal>

#include "errors.hpp"

namespace cudalab {
namespace {
volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void on_sigint(int) { g_interrupted = 1; }
}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_sigint);
  std::signal(SIGTERM, on_sigint);
}

bool interrupted() { return g_interrupted != 0; }

void throw_if_interrupted() {
  if (interrupted()) throw InterruptedError("interrupted");
}

}  // namespace cudalab
