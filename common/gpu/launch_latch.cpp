#include "common/gpu/launch_latch.hpp"

#include <cuda.h>  // the driver API's types; its functions come through cudart (no -lcuda)

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "common/core/errors.hpp"
#include "common/gpu/mapped_memory.hpp"

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

// Set once a latch of this process could not hold its stream, or had to be opened by its watchdog.
std::atomic<bool> latch_gave_up{false};

}  // namespace

bool LaunchLatch::usable() {
  const char* blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
  return !latch_gave_up && (blocking == nullptr || std::string_view(blocking) != "1");
}

bool LaunchLatch::gave_up() { return latch_gave_up; }

LaunchLatch::LaunchLatch() : flag_(1) {
  flag_[0] = 1;
  device_flag_ = device_view(flag_);
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
  reinterpret_cast<volatile unsigned int*>(flag_.data())[0] = value;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool LaunchLatch::close(cudaStream_t stream) {
  const WaitValue32 wait = stream_wait_value();
  if (wait == nullptr) {
    latch_gave_up = true;
    return false;
  }
  write_flag(0);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    timed_out_ = false;
    deadline_ = std::chrono::steady_clock::now() + kLatchTimeout;
  }
  changed_.notify_all();
  const CUresult r =
      wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(device_flag_), 1, CU_STREAM_WAIT_VALUE_GEQ);
  if (r == CUDA_SUCCESS) return true;
  open();
  if (r == CUDA_ERROR_NOT_SUPPORTED) {
    latch_gave_up = true;
    return false;
  }
  throw RuntimeError(msg("cuStreamWaitValue32 failed with CUresult {code}", arg("code", static_cast<int>(r))));
}

void LaunchLatch::open() {
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
  const std::lock_guard<std::mutex> lock(mutex_);
  if (timed_out_) latch_gave_up = true;
  return timed_out_;
}

}  // namespace cudalab
