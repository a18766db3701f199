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
#include <stdexcept>

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

// Ctrl-Z (SIGTSTP) and fg (SIGCONT) while a run wants or holds a GPU turn (common/queue/gpu_queue.hpp).
//
// A student who presses Ctrl-Z while holding the GPU would block the whole class until `fg`. Inside
// a TurnScope, Ctrl-Z is deferred: it sets a flag that the next check (throw_if_interrupted, every
// repetition) turns into TurnSuspendedError; the run unwinds, gives its turn back, and then
// stop_for_terminal() stops the process as the terminal asked. On `fg` it queues again and measures
// from the start. If the unwind stalls (a long GPU wait), the process stops after 1 s anyway, still
// holding its turn: the queue passes a stopped holder over.
// A SIGCONT inside a TurnScope (someone continued a process stopped with kill -STOP, while others
// may have been let past it) throws TurnResumedError at the next check: the figures measured so far
// are dropped, never mixed with later ones. Outside a TurnScope, Ctrl-Z stops at once, as usual.
class TurnScope {
 public:
  TurnScope();
  ~TurnScope();
  TurnScope(const TurnScope&) = delete;
  TurnScope& operator=(const TurnScope&) = delete;
};

struct TurnSuspendedError : std::runtime_error {
  TurnSuspendedError() : std::runtime_error("stopped with Ctrl-Z") {}
};
struct TurnResumedError : std::runtime_error {
  TurnResumedError() : std::runtime_error("continued after a stop") {}
};

// Stops this process as Ctrl-Z would (the default action of SIGTSTP); returns once it is continued
// (`fg`), with the resume that woke it already forgotten.
void stop_for_terminal();

// Sleeps `total`, or less: throws InterruptedError within a few milliseconds of a signal.
// std::this_thread::sleep_for resumes its sleep after EINTR, so polls must not use it.
void sleep_unless_interrupted(std::chrono::milliseconds total);

}  // namespace cudalab
