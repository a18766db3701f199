// A latch that holds a stream while the host enqueues the work to be timed, so the GPU starts it
// back to back once the host opens the latch: the host's launch jitter (a late cudaMemcpyAsync
// call, a preempted thread) then stays out of an event timing. nvbandwidth times its copies the
// same way. Only for work whose enqueue never waits for the GPU: a pageable cudaMemcpyAsync
// would wait behind the latch, and the latch gives up after kLatchTimeoutNs and reports it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda_raii.hpp"

namespace cudalab {

inline constexpr std::uint64_t kLatchTimeoutNs = 2'000'000'000;  // 2 s: far beyond any enqueue

class LaunchLatch {
 public:
  // False under CUDA_LAUNCH_BLOCKING=1: the latch's own launch would wait for the latch to open,
  // so there the work goes to the GPU as it is enqueued (the preflight warns about the setting).
  static bool usable();

  LaunchLatch();
  ~LaunchLatch() { open(); }  // never leave a kernel spinning behind an exception
  LaunchLatch(const LaunchLatch&) = delete;
  LaunchLatch& operator=(const LaunchLatch&) = delete;

  // Puts the spinning kernel on `stream`: what is enqueued after it waits until open().
  void close(cudaStream_t stream);
  // Lets the stream go on.
  void open();
  // After the stream has passed the latch: throws RuntimeError if it gave up waiting (the enqueue
  // between close and open waited for the GPU, so the timing is not what it claims).
  void check_not_timed_out() const;

 private:
  PinnedBuffer<unsigned int> words_;  // [0] open flag, written by the host; [1] timed-out mark
  unsigned int* device_words_ = nullptr;
};

}  // namespace cudalab
