#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cudalab::stream_overlap {

// Each byte x becomes the low byte of `iters` steps of x <- x * 1664525 + 1013904223 (mod 2^32).
// The low byte of that recurrence depends only on the low byte of x, so the CPU reference is a
// 256-entry table, while the GPU pays `iters` dependent multiply-adds per byte: the knob that
// makes one chunk's kernel as long as one chunk's copy.
void launch_affine_steps(std::uint8_t* data, std::size_t count, int iters, cudaStream_t stream);

// The same map on the host, for every byte value: table[x] = result for input x.
void affine_steps_table(int iters, std::uint8_t table[256]);

}  // namespace cudalab::stream_overlap
