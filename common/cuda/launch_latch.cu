#include "launch_latch.hpp"

#include <cuda.h>  // the driver API's types; its functions come through cudart (no -lcuda)

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "common/bench/errors.hpp"
#include "globaltimer.cuh"
#include "mapped_memory.hpp"

namespace cudalab {

namespace {

using WaitValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

// cuStreamWaitValue32 from the installed driver, or nullptr where it has none.
WaitValue32 stream_wait_value() {
  static const WaitValue32 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &p, 12000, cudaEnableDefault, &status);
    if (e != cudaSuccess || status != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();  // a missing symbol is an answer, not an error to carry on
      return WaitValue32{nullptr};
    }
    return reinterpret_cast<WaitValue32>(p);
  }();
  return fn;
}

// The fallback latch: one thread spins on the host-written flag (zero-copy), bounded by the
// GPU's wall clock.
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

// Set once a latch of this process had to be opened by its watchdog.
std::atomic<bool> latch_gave_up{false};

}  // namespace

bool LaunchLatch::usable() {
  const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
  return !latch_gave_up && (blocking == nullptr || std::string_view(blocking) != "1");
}

bool LaunchLatch::gave_up() { return latch_gave_up; }


LaunchLatch::LaunchLatch() : words_(2) {
  words_[0] = 1;
  words_[1] = 0;
  device_words_ = device_view(words_);
  watchdog_ = std::thread([this] { watch(); });
}

LaunchLatch::~LaunchLatch() {
  open();
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  watchdog_.join();
}

void LaunchLatch::write_flag(unsigned int value) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile unsigned int*>(words_.data())[0] = value;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void LaunchLatch::close(cudaStream_t stream) {
  words_[1] = 0;
  write_flag(0);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    timed_out_ = false;
    deadline_ = std::chrono::steady_clock::now() + kLatchTimeout;
  }
  changed_.notify_all();
  if (const WaitValue32 wait = stream_wait_value()) {
    const CUresult r = wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(device_words_), 1,
                            CU_STREAM_WAIT_VALUE_GEQ);
    if (r == CUDA_SUCCESS) return;
    if (r != CUDA_ERROR_NOT_SUPPORTED) {
      open();
      throw RuntimeError(fmt::format("cuStreamWaitValue32 failed with CUresult {}", static_cast<int>(r)));
    }
  }
  const auto timeout_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(kLatchTimeout).count();
  hold_until_open<<<1, 1, 0, stream>>>(device_words_, device_words_ + 1, static_cast<std::uint64_t>(timeout_ns));
  CUDALAB_CHECK_LAUNCH();
}

void LaunchLatch::open() {
  if (words_.data() == nullptr) return;
  write_flag(1);
  const std::lock_guard<std::mutex> lock(mutex_);
  closed_ = false;
}

void LaunchLatch::watch() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (!closed_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && closed_) {
      timed_out_ = true;
      closed_ = false;
      write_flag(1);
    }
  }
}

bool LaunchLatch::timed_out() {
  bool watchdog_opened = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    watchdog_opened = timed_out_;
  }
  const bool kernel_gave_up = reinterpret_cast<const volatile unsigned int*>(words_.data())[1] != 0;
  if (watchdog_opened || kernel_gave_up) latch_gave_up = true;
  return watchdog_opened || kernel_gave_up;
}

}  // namespace cudalab
