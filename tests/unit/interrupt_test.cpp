// SIGTERM and SIGINT, each in a child process of its own (gtest death tests): a wait that a
// signal interrupts ends with 128 + the signal within 0.2 s, a wait that never looks at the
// flag is ended by the backstop, a second signal ends the process at once, and live mode's
// Ctrl-C stops only the experiment. A child that misbehaves exits with a code of its own
// (90s), which the expectation names.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <thread>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"

using namespace cudalab;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSignalAfter = std::chrono::milliseconds(50);
constexpr auto kWithin = std::chrono::milliseconds(200);  // the bound for ending a wait
constexpr int kInterrupted = 128 + SIGINT;  // 130, ExitCode::interrupted
constexpr int kTerminated = 128 + SIGTERM;  // 143
constexpr int kTooSlow = 91;
constexpr int kNotInterrupted = 92;
constexpr int kBackstopMissed = 93;
constexpr int kSecondIgnored = 94;
constexpr int kStillInterrupted = 95;
constexpr int kHung = 96;

std::atomic<Clock::rep> g_sent_at{0};  // when signal_later sent its signal

// As `timeout` or a terminal would: the signal comes from outside the waiting thread.
void signal_later(int sig) {
  std::thread([sig] {
    std::this_thread::sleep_for(kSignalAfter);
    g_sent_at = Clock::now().time_since_epoch().count();
    kill(getpid(), sig);
  }).detach();
}

// A wait that the signal did not end must fail the test, not hang it.
void give_up_after_seconds(int seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    _exit(kHung);
  }).detach();
}

Clock::duration since_sent() { return Clock::now().time_since_epoch() - Clock::duration(g_sent_at.load()); }

// Runs `wait` with `sig` sent during it; exits as main would after an InterruptedError, or with
// one of the codes above when the wait did not end, or ended too late.
template <class Wait>
[[noreturn]] void interrupted_wait(int sig, Wait wait) {
  install_interrupt_handler();
  give_up_after_seconds(5);
  signal_later(sig);
  try {
    wait();
  } catch (const InterruptedError&) {
    _exit(since_sent() > kWithin ? kTooSlow : interrupt_exit_code());
  }
  _exit(kNotInterrupted);
}

// Waits for the signal to land, then for `kWithin` more without looking at the flag: blocked
// in a sleep that resumes after EINTR (as sleep_for does), or spinning.
[[noreturn]] void ignore_the_flag(int sig, bool spin) {
  install_interrupt_handler();
  signal_later(sig);
  const auto give_up = Clock::now() + std::chrono::seconds(5);
  while (!interrupted() && Clock::now() < give_up) {
  }
  const auto until = Clock::now() + kWithin;
  if (!spin) std::this_thread::sleep_for(kWithin);
  while (Clock::now() < until) {
  }
  _exit(kBackstopMissed);
}

void use_threadsafe_death_tests() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }

}  // namespace

TEST(Interrupt, SigtermEndsABlockedReadWith143) {
  use_threadsafe_death_tests();
  // A read that nothing will ever satisfy: the write end stays open, as a FIFO's writer would.
  EXPECT_EXIT(interrupted_wait(SIGTERM, [] {
                int fds[2];
                if (pipe(fds) != 0) _exit(1);
                char byte = 0;
                while (read(fds[0], &byte, 1) < 0) throw_if_interrupted();  // EINTR: no SA_RESTART
              }),
              ::testing::ExitedWithCode(kTerminated), "");
}

TEST(Interrupt, SigintEndsAQueueWaitOnALockWith130) {
  use_threadsafe_death_tests();
  // The GPU queue waits in flock for the student before; two open files of one path conflict.
  EXPECT_EXIT(interrupted_wait(SIGINT, [] {
                char path[] = "/tmp/cudalab-interrupt-lockXXXXXX";
                const int holder = mkstemp(path);
                const int waiter = open(path, O_RDONLY);
                unlink(path);
                if (holder < 0 || waiter < 0 || flock(holder, LOCK_EX) != 0) _exit(1);
                while (flock(waiter, LOCK_EX) != 0) throw_if_interrupted();
              }),
              ::testing::ExitedWithCode(kInterrupted), "");
}

TEST(Interrupt, SleepUnlessInterruptedEndsAPollAtOnce) {
  use_threadsafe_death_tests();
  // --wait-idle polls between sleeps: the sleep must not outlast the signal.
  EXPECT_EXIT(interrupted_wait(SIGTERM, [] { sleep_unless_interrupted(std::chrono::seconds(10)); }),
              ::testing::ExitedWithCode(kTerminated), "");
}

TEST(Interrupt, BackstopEndsAWaitThatNeverLooksAtTheFlag) {
  use_threadsafe_death_tests();
  // A long GPU wait or a loop over a huge input: nothing polls, and sleep_for resumes after
  // EINTR. The backstop ends the process with the signal's code, well within the bound.
  EXPECT_EXIT(ignore_the_flag(SIGTERM, /*spin=*/false), ::testing::ExitedWithCode(kTerminated), "");
  EXPECT_EXIT(ignore_the_flag(SIGINT, /*spin=*/true), ::testing::ExitedWithCode(kInterrupted), "");
}

TEST(Interrupt, ASecondSignalEndsTheProcessAtOnce) {
  use_threadsafe_death_tests();
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        std::raise(SIGTERM);  // the first asks for an unwind ...
        if (!interrupted()) _exit(kNotInterrupted);
        std::raise(SIGINT);  // ... the second does not wait for it
        _exit(kSecondIgnored);
      },
      ::testing::ExitedWithCode(kInterrupted), "");
}

TEST(Interrupt, LiveModeCtrlCStopsTheExperimentAndThePromptComesBack) {
  use_threadsafe_death_tests();
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        set_interrupt_mode(InterruptMode::stop_experiment);
        std::raise(SIGINT);
        if (!interrupted()) _exit(kNotInterrupted);
        std::this_thread::sleep_for(kWithin * 2);  // no backstop: the sitting goes on
        clear_interrupted();
        _exit(interrupted() ? kStillInterrupted : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Interrupt, LiveModeStillEndsOnSigterm) {
  use_threadsafe_death_tests();
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        set_interrupt_mode(InterruptMode::stop_experiment);
        std::raise(SIGTERM);
        clear_interrupted();  // only a Ctrl-C is cleared
        std::this_thread::sleep_for(kWithin);
        _exit(kBackstopMissed);
      },
      ::testing::ExitedWithCode(kTerminated), "");
  EXPECT_EXIT(
      {
        install_interrupt_handler();
        exit_on_interrupt(true);  // at the prompt there is nothing to unwind
        std::raise(SIGTERM);
        _exit(kSecondIgnored);
      },
      ::testing::ExitedWithCode(kTerminated), "");
}

// Ctrl-Z and fg while a GPU turn is wanted or held (TurnScope), in a forked child each: inside a
// scope Ctrl-Z becomes TurnSuspendedError at the next check, stop_for_terminal() really stops the
// process until SIGCONT; a SIGCONT inside a scope drops what was measured (TurnResumedError);
// outside a scope Ctrl-Z stops at once. The parent watches the child with waitpid(WUNTRACED).
namespace {

constexpr int kSuspendedSeen = 40;
constexpr int kResumedSeen = 41;
constexpr int kNothingSeen = 42;

// Forks `body`; returns its exit code, after continuing it each time it stops (counted in `stops`).
int run_child_continuing(const std::function<int()>& body, int& stops) {
  const pid_t pid = fork();
  if (pid == 0) {
    // A group of its own: in an orphaned process group (a test run under setsid, as CI may) the
    // kernel discards SIGTSTP's default action, and nothing would stop.
    setpgid(0, 0);
    give_up_after_seconds(10);
    install_interrupt_handler();
    _exit(body());
  }
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WUNTRACED) != pid) return -1;
    if (WIFSTOPPED(status)) {
      ++stops;
      kill(pid, SIGCONT);
      continue;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
}

}  // namespace

TEST(TurnScope, CtrlZWhileHoldingBecomesASuspendThenARealStop) {
  int stops = 0;
  const int code = run_child_continuing(
      [] {
        try {
          const TurnScope scope;
          kill(getpid(), SIGTSTP);
          for (int i = 0; i < 1000; ++i) {  // a repetition loop: each repetition checks
            throw_if_interrupted();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          return kNothingSeen;
        } catch (const TurnSuspendedError&) {
          stop_for_terminal();  // gives the turn back first in real use; then stops as asked
          throw_if_interrupted();  // continued: nothing pending outside the scope
          const TurnScope again;
          throw_if_interrupted();  // the fg that continued us is not a resume to drop
          return kSuspendedSeen;
        }
      },
      stops);
  EXPECT_EQ(code, kSuspendedSeen);
  EXPECT_EQ(stops, 1);
}

TEST(TurnScope, AContinueWhileHoldingDropsTheMeasurement) {
  int stops = 0;
  const int code = run_child_continuing(
      [] {
        try {
          const TurnScope scope;
          kill(getpid(), SIGSTOP);  // kill -STOP from outside; the parent continues us
          for (int i = 0; i < 1000; ++i) {
            throw_if_interrupted();
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          return kNothingSeen;
        } catch (const TurnResumedError&) {
          return kResumedSeen;
        }
      },
      stops);
  EXPECT_EQ(code, kResumedSeen);
  EXPECT_EQ(stops, 1);
}

TEST(TurnScope, CtrlZOutsideAScopeStopsAtOnce) {
  int stops = 0;
  const int code = run_child_continuing(
      [] {
        kill(getpid(), SIGTSTP);
        throw_if_interrupted();  // nothing pending: the stop already happened
        return 0;
      },
      stops);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(stops, 1);
}

TEST(TurnScope, AStalledUnwindStopsAfterASecondAndMeasuresAgainWhenContinued) {
  int stops = 0;
  const int code = run_child_continuing(
      [] {
        const TurnScope scope;
        kill(getpid(), SIGTSTP);
        const auto start = Clock::now();
        // A long GPU wait that never checks: the backstop stops the process where it is.
        while (Clock::now() - start < std::chrono::milliseconds(1500)) {
        }
        try {
          throw_if_interrupted();
        } catch (const TurnResumedError&) {
          return kResumedSeen;
        } catch (const TurnSuspendedError&) {
          return kSuspendedSeen;
        }
        return kNothingSeen;
      },
      stops);
  EXPECT_EQ(code, kResumedSeen);
  EXPECT_EQ(stops, 1);
}
