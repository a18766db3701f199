// A file descriptor owned by the scope that opened it: closed on every path out, thrown or not.
#pragma once

#include <unistd.h>

namespace cudalab {

class OwnedFd {
 public:
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace cudalab
