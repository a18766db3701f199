// Shared by the GPU queue's tests: a throwaway queue folder, a fake clock, and forked children
// that hold a ticket, a turn or a presence until they are told to go or are killed.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "common/queue/gpu_queue.hpp"

namespace cudalab::testing_support {

// The GPU the tests queue for (any name of NVML's form will do).
inline const std::string kTestGpu = "GPU-8f0e1c2a-1b2c-3d4e-5f60-718293a4b5c6";

// A fresh queue folder under /tmp, removed afterwards.
class TempQueueFolder {
 public:
  TempQueueFolder() {
    char pattern[] = "/tmp/cudalab-queue-test-XXXXXX";
    const char* made = ::mkdtemp(pattern);
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~TempQueueFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempQueueFolder(const TempQueueFolder&) = delete;
  TempQueueFolder& operator=(const TempQueueFolder&) = delete;
  const std::string& path() const { return path_; }
  std::string gpu(const std::string& uuid) const { return path_ + "/" + uuid; }

 private:
  std::string path_;
};

// Options for a queue in `folder` that print nothing and ignore signals.
inline QueueOptions quiet_options(const TempQueueFolder& folder, const std::string& lesson = "stream-overlap") {
  QueueOptions o;
  o.folder = folder.path();
  o.lesson = lesson;
  o.on_wait = [](const QueueView&) {};
  o.check_interrupt = [] {};
  return o;
}

// Time that moves only when the queue sleeps.
class FakeQueueClock final : public QueueClock {
 public:
  double steady_s() override { return now_; }
  double wall_s() override { return 1.7e9 + now_; }
  void sleep_s(double seconds) override { now_ += seconds > 0 ? seconds : 0; }
  void advance(double seconds) { now_ += seconds; }

 private:
  double now_ = 100;
};

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A forked child running `body` (its return value is the exit code; an exception exits 99 and
// prints its message). The child says "ready" and the parent says "go on", each through a pipe.
// Killed (SIGKILL) when the object goes, if still running. Saying "go on" to a child that already
// ended is no SIGPIPE for the test: its exit code tells what happened.
class Child {
 public:
  explicit Child(const std::function<int(Child&)>& body) {
    int fds[2], back[2];
    if (::pipe(fds) != 0 || ::pipe(back) != 0) throw std::runtime_error("pipe failed");
    ::signal(SIGPIPE, SIG_IGN);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      ::close(back[1]);
      write_end_ = fds[1];
      command_end_ = back[0];
      int code = 99;
      try {
        code = body(*this);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d ended on an exception: %s\n", static_cast<int>(::getpid()), e.what());
      } catch (...) {
        std::fprintf(stderr, "child %d ended on an exception\n", static_cast<int>(::getpid()));
      }
      ::_exit(code);
    }
    ::close(fds[1]);
    ::close(back[0]);
    read_end_ = fds[0];
    go_end_ = back[1];
  }
  ~Child() {
    if (pid_ > 0 && !status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (read_end_ >= 0) ::close(read_end_);
    if (go_end_ >= 0) ::close(go_end_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // In the child.
  void ready() {
    const char byte = 'r';
    (void)!::write(write_end_, &byte, 1);
  }
  // In the child: waits until the parent says go on (false when the parent is gone).
  bool wait_go() {
    char byte = 0;
    return ::read(command_end_, &byte, 1) == 1;
  }
  // In the parent.
  void go() {
    const char byte = 'g';
    (void)!::write(go_end_, &byte, 1);
  }
  // In the parent: true once the child said ready (false after `timeout_s`).
  bool wait_ready(double timeout_s = 5) {
    struct pollfd p {read_end_, POLLIN, 0};
    char byte = 0;
    return ::poll(&p, 1, static_cast<int>(timeout_s * 1000)) == 1 && ::read(read_end_, &byte, 1) == 1;
  }
  pid_t pid() const { return pid_; }
  void kill(int signal) { ::kill(pid_, signal); }
  // Its exit code (or 128 + signal) once it ended, nullopt when it still runs after `timeout_s`.
  std::optional<int> wait_exit(double timeout_s) {
    const auto start = std::chrono::steady_clock::now();
    while (!status_) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else if (seconds_since(start) > timeout_s) {
        return std::nullopt;
      } else {
        ::usleep(1000);
      }
    }
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int read_end_ = -1, write_end_ = -1, command_end_ = -1, go_end_ = -1;
  std::optional<int> status_;
};

}  // namespace cudalab::testing_support
