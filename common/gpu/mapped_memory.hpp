// Pinned host memory that kernels read and write directly (zero-copy): the device-side address
// of a PinnedBuffer (flags and time stamps the host polls while a kernel still runs), and a buffer
// allocated mapped from the start, for data a kernel reads or writes over the bus.
#pragma once

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

// The device-side address of mapped, pinned host memory at `host`.
template <typename T>
T* device_view_of(T* host) {
  void* device_ptr = nullptr;
  CUDALAB_CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr, host, 0));
  return static_cast<T*>(device_ptr);
}

template <typename T>
T* device_view(const PinnedBuffer<T>& buffer) {
  return device_view_of(buffer.data());
}

// n elements of T in page-locked host memory mapped into the device's address space
// (cudaHostAlloc with cudaHostAllocMapped): a kernel given device_data() reads and writes the
// host's memory itself, over the bus, with no copy. Being pinned, it also serves cudaMemcpyAsync.
template <typename T>
class MappedBuffer : public CudaArray<T, detail::free_pinned> {
 public:
  MappedBuffer() = default;
  explicit MappedBuffer(std::size_t count) : CudaArray<T, detail::free_pinned>(allocate(count), count) {
    if (count > 0) device_ = device_view_of(this->data());
  }
  T* device_data() const { return device_; }  // the address a kernel uses; data() is the host's
  T& operator[](std::size_t i) const { return this->data()[i]; }

 private:
  static void* allocate(std::size_t count) {
    void* p = nullptr;
    if (count > 0) CUDALAB_CUDA_CHECK(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped));
    return p;
  }
  T* device_ = nullptr;
};

}  // namespace cudalab
