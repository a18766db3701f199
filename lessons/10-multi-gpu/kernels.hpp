// Lesson 10's kernels: a layer of the simulated backward pass, which fills the GPU for a known
// time and then writes that layer's gradient, and a copy done by the SMs instead of a copy engine.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "kernel_shapes.hpp"

namespace cudalab::multi_gpu {

// How many layer blocks fit on one SM at once (the width of one wave, per SM).
int layer_blocks_per_sm();

// One block that spins `us` of wall time: holds a stream while the host enqueues work that must
// start together behind it.
void launch_hold(cudaStream_t stream, int us);

// `blocks` blocks that each spin kLayerBlockUs, then together write gradient_value(rank, layer, i)
// into grad[0, count).
void launch_layer(cudaStream_t stream, float* grad, std::size_t count, int rank, int layer, int blocks);

// Blocks of the SM copy kernel one SM holds at once.
int sm_copy_blocks_per_sm();

// `blocks` blocks of kCopyThreads copy `bytes` from src to dst with plain loads and stores: dst
// may be another GPU's memory when peer access is on (the copy then crosses the link).
void launch_sm_copy(cudaStream_t stream, std::uint8_t* dst, const std::uint8_t* src, std::size_t bytes, int blocks);

}  // namespace cudalab::multi_gpu
