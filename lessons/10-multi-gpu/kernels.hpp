// Lesson 10's one kernel: a layer of the simulated backward pass, which fills the GPU for a known
// time and then writes that layer's gradient.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "common/cuda/host_device.hpp"

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

// How many layer blocks fit on one SM at once (the width of one wave, per SM).
int layer_blocks_per_sm();

// One block that spins `us` of wall time: holds a stream while the host enqueues work that must
// start together behind it.
void launch_hold(cudaStream_t stream, int us);

// `blocks` blocks that each spin kLayerBlockUs, then together write gradient_value(rank, layer, i)
// into grad[0, count).
void launch_layer(cudaStream_t stream, float* grad, std::size_t count, int rank, int layer, int blocks);

}  // namespace cudalab::multi_gpu
