// Ctrl-C (SIGINT) and SIGTERM (a grader's `timeout`, a closing terminal, the queue's owner).
//
// The first signal sets a flag and nothing else: waits we own look at it (every repetition in
// timing.hpp, --wait-idle's polls, sleep_unless_interrupted), throw InterruptedError, and RAII
// releases GPU memory, streams and pinned buffers on the way out to main, which exits with
// 128 + the signal (130 for SIGINT, 143 for SIGTERM).
//
// Waits we do not own must not outlive the signal either, so:
// - the handler is installed without SA_RESTART: a blocking system call (a read on a terminal,
//   an open, flock for the GPU queue) returns EINTR instead of waiting on; the caller then calls
//   throw_if_interrupted();
// - the signal is handled on the main thread, whichever thread the kernel picked, so that the
//   main thread's blocking call is the one that returns EINTR;
// - a backstop ends the process 150 ms after the first signal if it has not ended by itself (a
//   long cudaStreamSynchronize, a loop over a huge input that never polls). The driver reclaims
//   the device memory of an exiting process, so nothing is left on the GPU either way.
// A second signal ends the process at once (_exit), with 128 + that signal.
#pragma once

#include <chrono>

namespace cudalab {

// What the first signal means, set by whoever owns the process's loop.
enum class InterruptMode {
  end_process,      // a one-shot command: unwind and exit (the backstop is armed)
  stop_experiment,  // live mode while a lesson runs: Ctrl-C stops it and the prompt comes back
                    // (no backstop for SIGINT; SIGTERM still ends the process)
  exit_at_once,     // live mode at its prompt: nothing to unwind, leave now
};

void install_interrupt_handler();
void set_interrupt_mode(InterruptMode mode);

bool interrupted();
// Throws InterruptedError when a signal arrived; call it after any wait returns EINTR.
void throw_if_interrupted();
// 130 after SIGINT, 143 after SIGTERM (128 + the signal); 130 when none arrived.
int interrupt_exit_code();

// Live mode: after a Ctrl-C stopped the experiment, the prompt takes over again. A pending
// SIGTERM is not cleared: the process still has to end.
void clear_interrupted();
// Live mode's two states: at the prompt (true) a signal leaves at once; while a lesson runs
// (false) Ctrl-C stops the lesson. Same as set_interrupt_mode(exit_at_once / stop_experiment).
void exit_on_interrupt(bool at_once);

// Sleeps `total`, or less: throws InterruptedError within a few milliseconds of a signal.
// std::this_thread::sleep_for resumes its sleep after EINTR, so polls must not use it.
void sleep_unless_interrupted(std::chrono::milliseconds total);

}  // namespace cudalab
