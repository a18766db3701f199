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

}  // namespace

void launch_hold(cudaStream_t stream, int us) {
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(us) * 1000u);
  CUDALAB_CHECK_LAUNCH();
}

int layer_blocks_per_sm() { return blocks_per_sm(reinterpret_cast<const void*>(&layer_kernel), kLayerThreads); }

void launch_layer(cudaStream_t stream, float* grad, std::size_t count, int rank, int layer, int blocks) {
  layer_kernel<<<blocks, kLayerThreads, 0, stream>>>(grad, count, rank, layer);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::multi_gpu
