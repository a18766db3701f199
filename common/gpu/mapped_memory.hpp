// Pinned host memory that kernels read and write directly (zero-copy): the device-side address
// of a PinnedBuffer. Used for flags and time stamps the host polls while a kernel still runs.
#pragma once

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

template <typename T>
T* device_view(const PinnedBuffer<T>& buffer) {
  void* device_ptr = nullptr;
  CUDALAB_CUDA_CHECK(cudaHostGetDevicePointer(&device_ptr, buffer.data(), 0));
  return static_cast<T*>(device_ptr);
}

}  // namespace cudalab
