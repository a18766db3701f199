// Lesson 10's kernels as the host sees them: their block shapes and the gradient the layer
// kernel writes, for the CPU reference and the report (no CUDA here; launches are in kernels.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::multi_gpu {

constexpr int kLayerThreads = 256;
// Threads per block of the SM copy kernel.
constexpr int kCopyThreads = 256;
// Each block of a layer spins this long; a layer is whole waves of such blocks.
constexpr int kLayerBlockUs = 20;

// The gradient GPU `rank` computes for element i of layer `layer`: a small whole number, so the
// sum over up to 8 GPUs is exact in float whatever order NCCL adds in.
CUDALAB_HOST_DEVICE inline float gradient_value(int rank, int layer, std::size_t i) {
  return static_cast<float>((static_cast<std::uint32_t>(i) * 7u + static_cast<std::uint32_t>(layer) * 13u +
                             static_cast<std::uint32_t>(rank) * 29u) % 31u);
}

}  // namespace cudalab::multi_gpu
