#include "launch_latch.hpp"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "common/bench/errors.hpp"
#include "globaltimer.cuh"
#include "mapped_memory.hpp"

namespace cudalab {

namespace {

// One thread spins on the host-written flag (zero-copy), bounded by the GPU's wall clock.
__global__ void hold_until_open(const volatile unsigned int* open_flag, unsigned int* timed_out,
                                std::uint64_t timeout_ns) {
  const std::uint64_t start = global_time_ns();
  while (*open_flag == 0) {
    if (global_time_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

bool LaunchLatch::usable() {
  const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
  return blocking == nullptr || std::string_view(blocking) != "1";
}

LaunchLatch::LaunchLatch() : words_(2) {
  words_[0] = 1;
  words_[1] = 0;
  device_words_ = device_view(words_);
}

void LaunchLatch::close(cudaStream_t stream) {
  words_[1] = 0;
  reinterpret_cast<volatile unsigned int*>(words_.data())[0] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_until_open<<<1, 1, 0, stream>>>(device_words_, device_words_ + 1, kLatchTimeoutNs);
  CUDALAB_CHECK_LAUNCH();
}

void LaunchLatch::open() {
  if (words_.data() == nullptr) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile unsigned int*>(words_.data())[0] = 1;
}

void LaunchLatch::check_not_timed_out() const {
  if (reinterpret_cast<const volatile unsigned int*>(words_.data())[1] != 0) {
    throw RuntimeError("a launch latch gave up after 2 s: the work enqueued behind it waited for the GPU");
  }
}

}  // namespace cudalab
