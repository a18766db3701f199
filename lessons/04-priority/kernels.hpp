// Launch wrappers for lesson 04's two kernels; every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/cuda/host_device.hpp"

namespace cudalab::priority {

constexpr int kBackgroundThreads = 256;
constexpr int kUrgentThreads = 256;

// The values each kernel writes, so the host can check every element.
CUDALAB_HOST_DEVICE inline std::uint32_t background_value(std::uint32_t i) { return i * 2654435761u + 1u; }
CUDALAB_HOST_DEVICE inline std::uint32_t urgent_value(std::uint32_t i) { return (i ^ 0x5bd1e995u) * 40503u; }

// How many background blocks one SM holds at once (the width of one wave).
int background_blocks_per_sm();

// `blocks` blocks that each spin `block_ns` of wall time (%globaltimer) and then write
// background_value(i). The first thread to run sets *started_flag (host-mapped) to 1.
void launch_background(cudaStream_t stream, std::uint32_t* out, int blocks, std::uint64_t block_ns,
                       int* started_flag);

// The latency-critical kernel: `blocks` blocks writing urgent_value(i).
void launch_urgent(cudaStream_t stream, std::uint32_t* out, int blocks);

}  // namespace cudalab::priority
