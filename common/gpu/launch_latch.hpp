// A latch that holds a stream while the host enqueues the work to be timed, so the GPU starts it
// back to back once the host opens the latch: the host's launch jitter (a late cudaMemcpyAsync
// call, a preempted thread) then stays out of an event timing. nvbandwidth times its copies the
// same way. The stream waits at its front end (cuStreamWaitValue32 on a host-written flag), so
// what follows starts as on an idle stream whose work was all queued. (A spinning kernel would
// do the same where stream memory operations are missing, but a copy behind a kernel also pays
// the hand-off from the compute engine: about 4 µs on the lab H100, which inflated the figure.)
//
// Only for work whose enqueue never waits for the GPU: a pageable cudaMemcpyAsync would wait
// behind the latch, and so do all copies under tools that serialise the GPU (compute-sanitizer's
// initcheck). A watchdog then opens the latch after kLatchTimeout. Once a latch gave up, or could
// not be closed at all, this process times work as it is enqueued and says so (gave_up()).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

inline constexpr std::chrono::seconds kLatchTimeout{2};  // far beyond any enqueue

class LaunchLatch {
 public:
  // False under CUDA_LAUNCH_BLOCKING=1 (the launches behind the latch would each wait for it; the
  // preflight warns about the setting) and once a latch of this process gave up.
  static bool usable();
  // Whether a latch of this process gave up, so its timings include the launches after all.
  static bool gave_up();

  LaunchLatch();
  ~LaunchLatch();  // opens the latch: never leave a stream waiting behind an exception
  LaunchLatch(const LaunchLatch&) = delete;
  LaunchLatch& operator=(const LaunchLatch&) = delete;

  // Holds `stream`: what is enqueued after this waits until open(). False, and gave_up() from
  // then on, where the driver cannot hold a stream (no stream memory operations).
  bool close(cudaStream_t stream);
  // Lets the stream go on.
  void open();
  // After the stream has passed the latch: whether the watchdog had to open it (the enqueue between
  // close and open waited for the GPU, so that timing is not what it claims). Then gave_up().
  bool timed_out();

 private:
  void write_flag(unsigned int value);
  void watch();

  PinnedBuffer<unsigned int> flag_;  // written by the host, read by the stream's front end
  unsigned int* device_flag_ = nullptr;
  // The watchdog: opens a latch left closed for kLatchTimeout.
  std::mutex mutex_;
  std::condition_variable changed_;
  bool closed_ = false;
  bool timed_out_ = false;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::thread watchdog_;
};

}  // namespace cudalab
