// Pinned host memory that kernels read and write directly (zero-copy): the device-side address
// of a PinnedBuffer (flags and time stamps the host polls while a kernel still runs), and a buffer
// allocated mapped from the start, for data a kernel reads or writes over the bus.
#pragma once

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

template <typename T>
T* device_view(const PinnedBuffer<T>& buffer) {
  void* device_ptr = nullptr;
  CUDALAB_CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr, buffer.data(), 0));
  return static_cast<T*>(device_ptr);
}

// n elements of T in page-locked host memory mapped into the device's address space
// (cudaHostAlloc with cudaHostAllocMapped): a kernel given device_data() reads and writes the
// host's memory itself, over the bus, with no copy. Being pinned, it also serves cudaMemcpyAsync.
template <typename T>
class MappedBuffer {
 public:
  MappedBuffer() = default;
  explicit MappedBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    void* p = nullptr;
    CUDALAB_CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped));
    ptr_ = Owner(p);
    void* device_ptr = nullptr;
    CUDALAB_CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr, p, 0));
    device_ = static_cast<T*>(device_ptr);
  }
  T* data() const { return static_cast<T*>(ptr_.get()); }  // the host's address
  T* device_data() const { return device_; }                 // the address a kernel uses
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  T& operator[](std::size_t i) const { return data()[i]; }

 private:
  using Owner = UniqueCudaHandle<void*, detail::free_pinned>;
  Owner ptr_;
  T* device_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudalab
