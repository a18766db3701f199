#include <vector>

#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/smoke_kernel.hpp"

namespace cudalab {

namespace {
constexpr std::uint32_t kHash = 2654435761u;

__global__ void hash_indices(std::uint32_t* out, std::size_t count) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = static_cast<std::uint32_t>(i) * kHash;
}
}  // namespace

std::size_t run_smoke_kernel(std::size_t count) {
  DeviceBuffer<std::uint32_t> device(count);
  // Poison first, so an element the kernel never wrote cannot pass.
  CUDALAB_CUDA_CHECK(cudaMemset(device.data(), 0xFF, device.bytes()));
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((count + threads - 1) / threads);
  hash_indices<<<blocks, threads>>>(device.data(), count);
  CUDALAB_CHECK_LAUNCH();
  std::vector<std::uint32_t> host(count);
  CUDALAB_CUDA_CHECK(cudaMemcpy(host.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
  std::size_t correct = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (host[i] == static_cast<std::uint32_t>(i) * kHash) ++correct;
  }
  return correct;
}

}  // namespace cudalab
