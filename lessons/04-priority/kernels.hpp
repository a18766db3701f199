// Launch wrappers for lesson 04's two kernels (the lecture's demo uses lessons/shared/lecture-kernel); every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernel_shapes.hpp"

namespace cudalab::priority {

// How many background blocks one SM holds at once (the width of one wave).
int background_blocks_per_sm();

// `blocks` blocks that each spin `block_ns` of wall time (%globaltimer) and then write
// background_value(i). The first thread to run sets *started_flag (host-mapped) to 1.
void launch_background(cudaStream_t stream, std::uint32_t* out, int blocks, std::uint64_t block_ns,
                       int* started_flag);

// The latency-critical kernel: `blocks` blocks writing urgent_value(i).
void launch_urgent(cudaStream_t stream, std::uint32_t* out, int blocks);

}  // namespace cudalab::priority
