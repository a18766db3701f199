// Launch wrappers for lesson 08's one kernel; every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::default_stream {

// One block of this many threads per kernel: a kernel takes one SM, so any number of them could
// run side by side. Whatever serializes them here is stream semantics, not a full GPU.
constexpr int kThreads = 256;

// What kernel number `slot` writes to element `i` of its slice, so the host checks every element.
CUDALAB_HOST_DEVICE inline std::uint32_t slot_value(std::uint32_t slot, std::uint32_t i) {
  return (slot * 2654435761u) ^ (i * 40503u + 7u);
}

// Spins `spin_ns` of wall time, then writes slot_value(slot, i) to out[slot * kThreads + i]. A
// non-null `scratch` (kThreads elements) is the temporary the lesson allocates per kernel: the
// value passes through it on the way to `out`.
void launch_spin_then_write(cudaStream_t stream, std::uint32_t* out, std::uint32_t* scratch, std::uint32_t slot,
                            std::uint64_t spin_ns);

}  // namespace cudalab::default_stream
