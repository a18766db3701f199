// Managed (unified) memory: one address valid on the host and on the device, whose pages the
// driver moves to whichever processor touches them (on demand), or ahead of the touch when asked
// (a prefetch, in stream order). A move-only owner, and the prefetch in both directions.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

// n elements of T in managed memory (cudaMallocManaged, visible to every stream); cudaFree
// releases it as it does device memory.
template <typename T>
class ManagedBuffer : public CudaArray<T, detail::free_device> {
 public:
  ManagedBuffer() = default;
  explicit ManagedBuffer(std::size_t count) : CudaArray<T, detail::free_device>(allocate(count), count) {}
  T& operator[](std::size_t i) const { return this->data()[i]; }

 private:
  static void* allocate(std::size_t count) {
    void* p = nullptr;
    if (count > 0) CUDALAB_CUDA_CHECK(cudaMallocManaged(&p, count * sizeof(T), cudaMemAttachGlobal));
    return p;
  }
};

// Moves `bytes` of managed memory at `ptr` to `device`'s memory, or to the host's, in the order
// of `stream` (CUDA 13 names the destination with a cudaMemLocation; older CUDA with an ordinal).
inline void prefetch_to_device(const void* ptr, std::size_t bytes, int device, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = device;
  CUDALAB_CUDA_CHECK(cudaMemPrefetchAsync(ptr, bytes, location, 0, stream));
#else
  CUDALAB_CUDA_CHECK(cudaMemPrefetchAsync(ptr, bytes, device, stream));
#endif
}

inline void prefetch_to_host(const void* ptr, std::size_t bytes, cudaStream_t stream) {
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeHost;
  location.id = 0;
  CUDALAB_CUDA_CHECK(cudaMemPrefetchAsync(ptr, bytes, location, 0, stream));
#else
  CUDALAB_CUDA_CHECK(cudaMemPrefetchAsync(ptr, bytes, cudaCpuDeviceId, stream));
#endif
}

}  // namespace cudalab
