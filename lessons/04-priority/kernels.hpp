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

// The lecture's priority demo (seed 002): one thread per element iterates x <- sin(x) + cos(x)
// `iterations` times, in blocks of kLectureThreads.
constexpr int kLectureThreads = 256;
constexpr int kLectureElements = 1 << 20;
// The lecture's inputs are rand() % 100 / 100: a hundred distinct values. Ours are the same
// hundred, in order, so the CPU computes each result once and checks every element against it.
constexpr int kLectureDistinctInputs = 100;
inline float lecture_input(int i) { return static_cast<float>(i % kLectureDistinctInputs) / 100.0f; }
int lecture_blocks_per_sm();
void launch_sin_cos_iterations(cudaStream_t stream, const float* in, float* out, int n, int iterations);

}  // namespace cudalab::priority
