// Lesson 10's layer kernel as the host sees it: its block shape and the gradient it writes, for
// the CPU reference and the report (no CUDA here; the launch wrappers are in kernels.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::multi_gpu {

constexpr int kLayerThreads = 256;
// Each block of a layer spins this long; a layer is whole waves of such blocks.
constexpr int kLayerBlockUs = 20;

// The gradient GPU `rank` computes for element i of layer `layer`: a small whole number, so the
// sum over up to 8 GPUs is exact in float whatever order NCCL adds in.
CUDALAB_HOST_DEVICE inline float gradient_value(int rank, int layer, std::size_t i) {
  return static_cast<float>((static_cast<std::uint32_t>(i) * 7u + static_cast<std::uint32_t>(layer) * 13u +
                             static_cast<std::uint32_t>(rank) * 29u) % 31u);
}

}  // namespace cudalab::multi_gpu
