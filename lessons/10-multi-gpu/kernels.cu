#include "common/gpu/cuda_check.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/globaltimer.cuh"
#include "kernels.hpp"

namespace cudalab::multi_gpu {

namespace {

// Spins on the wall clock rather than doing arithmetic: a layer's length then stays fixed when
// NCCL's kernels share the SMs, so any stretch of the step comes from scheduling, not from work.
__global__ void layer_kernel(float* grad, std::size_t count, int rank, int layer) {
  spin_for_ns(static_cast<std::uint64_t>(kLayerBlockUs) * 1000u);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    grad[i] = gradient_value(rank, layer, i);
  }
}

__global__ void hold_kernel(std::uint64_t ns) { spin_for_ns(ns); }

// What nvbandwidth's SM variants do: the SMs themselves move the bytes, as stores into the other
// GPU's memory over the link, so no copy engine takes part. 16 bytes per store; the few bytes
// past the last whole 16 go one by one.
__global__ void sm_copy_kernel(std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t vectors = bytes / sizeof(uint4);
  auto* dst_vec = reinterpret_cast<uint4*>(dst);
  const auto* src_vec = reinterpret_cast<const uint4*>(src);
  for (std::size_t i = first; i < vectors; i += stride) dst_vec[i] = src_vec[i];
  for (std::size_t i = vectors * sizeof(uint4) + first; i < bytes; i += stride) dst[i] = src[i];
}

}  // namespace

void launch_hold(cudaStream_t stream, int us) {
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(us) * 1000u);
  CUDALAB_CHECK_LAUNCH();
}

int sm_copy_blocks_per_sm() { return blocks_per_sm(reinterpret_cast<const void*>(&sm_copy_kernel), kCopyThreads); }

void launch_sm_copy(cudaStream_t stream, std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes, int blocks) {
  sm_copy_kernel<<<blocks, kCopyThreads, 0, stream>>>(dst, src, bytes);
  CUDALAB_CHECK_LAUNCH();
}

int layer_blocks_per_sm() { return blocks_per_sm(reinterpret_cast<const void*>(&layer_kernel), kLayerThreads); }

void launch_layer(cudaStream_t stream, float* grad, std::size_t count, int rank, int layer, int blocks) {
  layer_kernel<<<blocks, kLayerThreads, 0, stream>>>(grad, count, rank, layer);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::multi_gpu
