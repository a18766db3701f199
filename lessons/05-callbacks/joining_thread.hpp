// A std::thread that is always joined: leaving its scope, even by an exception, waits for it.
#pragma once

#include <thread>
#include <utility>

namespace cudalab {

class JoiningThread {
 public:
  template <typename F>
  explicit JoiningThread(F&& body) : thread_(std::forward<F>(body)) {}
  JoiningThread(const JoiningThread&) = delete;
  JoiningThread& operator=(const JoiningThread&) = delete;
  ~JoiningThread() { join(); }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
};

}  // namespace cudalab
