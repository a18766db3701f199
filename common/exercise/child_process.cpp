#include "common/exercise/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/run_children.hpp"

namespace cudalab {

namespace {

using Clock = std::chrono::steady_clock;

// Once the child has exited, how long its pipes may stay open (a grandchild it left behind)
// before the group is killed and the run ends with what came.
constexpr std::chrono::milliseconds kDrainAfterExit{200};
constexpr int kPollMs = 20;

struct Pipe {
  int read = -1;
  int write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw RuntimeError(msg("cannot make a pipe: {error}", arg("error", errno_words(errno))));
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

// In the child, between fork and exec: only async-signal-safe calls. Never returns.
[[noreturn]] void become_child(const ChildSpec& spec, std::vector<char*>& argv, Pipe& in, Pipe& out, Pipe& result,
                               Pipe& exec_error) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);  // a setgid binary exec'ed from here gains no group
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);         // the lab gone, the student's code goes too
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGTSTP, SIGCONT, SIGCHLD}) ::sigaction(s, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::dup2(in.read, 0);
  ::dup2(out.write, 1);
  ::dup2(out.write, 2);
  ::dup2(result.write, kChildResultFd);
  for (const auto& [name, value] : spec.environment) ::setenv(name.c_str(), value.c_str(), 1);
  ::execv(argv[0], argv.data());
  const int err = errno;
  [[maybe_unused]] const ssize_t n = ::write(exec_error.write, &err, sizeof err);
  ::_exit(127);
}

// Appends what `fd` has to `into`, keeping at most `limit` bytes (the last ones when keep_tail,
// else the first, setting *cut). False at end of file or on an error.
bool drain(int fd, std::string& into, std::size_t limit, bool keep_tail, bool* cut) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  into.append(buffer, static_cast<std::size_t>(n));
  if (into.size() > limit) {
    if (keep_tail) {
      into.erase(0, into.size() - limit);
    } else {
      into.resize(limit);
      if (cut != nullptr) *cut = true;
    }
  }
  return true;
}

void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);  // in case it had not yet made its own group
}

void set_ending(ChildOutcome& outcome, int status) {
  if (WIFEXITED(status)) {
    outcome.ending = ChildEnding::exited;
    outcome.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    outcome.ending = ChildEnding::signaled;
    outcome.signal = WTERMSIG(status);
  }
}

}  // namespace

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(signal);
  }
}

namespace {

// The pipes of one child, from the parent's side.
struct ChildPipes {
  Pipe in, out, result, exec_error;
};

// Feeds the child's stdin, reads its output and result, and waits for it to end, its time limit
// to pass, or a signal to the lab; returns with the child reaped. Sets outcome's ending for a
// child killed here (timed out, interrupted), else returns its wait status.
int watch_child(pid_t pid, const ChildSpec& spec, ChildPipes& pipes, Clock::time_point started, ChildOutcome& outcome) {
  ::fcntl(pipes.in.write, F_SETFL, O_NONBLOCK);
  std::size_t written = 0;
  if (spec.input.empty()) pipes.in.close_write();
  const auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.time_limit_s));
  bool out_open = true, result_open = true, reaped = false;
  Clock::time_point exited_at{};
  int status = 0;
  for (;;) {
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      exited_at = Clock::now();
    }
    if (reaped && ((!out_open && !result_open) || Clock::now() - exited_at > kDrainAfterExit)) return status;
    if (!reaped && (Clock::now() >= deadline || interrupted())) {
      outcome.ending = interrupted() ? ChildEnding::interrupted : ChildEnding::timed_out;
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      return status;
    }
    pollfd fds[3];
    nfds_t n = 0;
    if (out_open) fds[n++] = {pipes.out.read, POLLIN, 0};
    if (result_open) fds[n++] = {pipes.result.read, POLLIN, 0};
    if (pipes.in.write >= 0) fds[n++] = {pipes.in.write, POLLOUT, 0};
    if (::poll(fds, n, kPollMs) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == pipes.out.read) {
        out_open = drain(pipes.out.read, outcome.output, spec.output_limit, true, nullptr);
      } else if (fds[i].fd == pipes.result.read) {
        result_open = drain(pipes.result.read, outcome.result, spec.result_limit, false, &outcome.result_cut);
      } else {
        const ssize_t w = ::write(pipes.in.write, spec.input.data() + written, spec.input.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == spec.input.size()) pipes.in.close_write();
      }
    }
  }
}

}  // namespace

ChildOutcome run_child(const ChildSpec& spec) {
  ChildOutcome outcome;
  if (spec.argv.empty()) {
    outcome.start_error = "no program to run";
    return outcome;
  }
  // A child that closes its stdin early must not end the lab with SIGPIPE.
  struct IgnorePipe {
    struct sigaction before {};
    IgnorePipe() {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ::sigaction(SIGPIPE, &ignore, &before);
    }
    ~IgnorePipe() { ::sigaction(SIGPIPE, &before, nullptr); }
  } ignore_pipe;
  ChildPipes pipes;
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto started = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    outcome.start_error = msg("cannot start a process: {error}", arg("error", errno_words(errno)));
    return outcome;
  }
  if (pid == 0) become_child(spec, argv, pipes.in, pipes.out, pipes.result, pipes.exec_error);
  ::setpgid(pid, pid);
  count_as_this_run(pid);  // its GPU work is this run's, not another tenant's
  outcome.pid = pid;
  pipes.in.close_read();
  pipes.out.close_write();
  pipes.result.close_write();
  pipes.exec_error.close_write();
  int exec_errno = 0;
  if (::read(pipes.exec_error.read, &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno)) {
    ::waitpid(pid, nullptr, 0);
    outcome.start_error =
        msg("cannot run {program}: {error}", arg("program", spec.argv[0]), arg("error", errno_words(exec_errno)));
    return outcome;
  }
  const int status = watch_child(pid, spec, pipes, started, outcome);
  ::kill(-pid, SIGKILL);  // whatever it left behind in its group
  if (outcome.ending != ChildEnding::timed_out && outcome.ending != ChildEnding::interrupted) set_ending(outcome, status);
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  return outcome;
}

}  // namespace cudalab
