// Ctrl-C during a lesson: the handler only sets a flag; lessons poll it between measurements
// (timing.hpp does so for every repetition), throw InterruptedError, and RAII releases
// everything on the way out to main, which exits with ExitCode::interrupted.
#pragma once

namespace cudalab {

void install_interrupt_handler();
bool interrupted();
void throw_if_interrupted();
// Live mode: after a Ctrl-C stopped the experiment, the prompt takes over again.
void clear_interrupted();
// While true (live mode's prompt), Ctrl-C exits at once instead of asking for a stop.
void exit_on_interrupt(bool at_once);

}  // namespace cudalab
