// Launch wrappers for lesson 09's kernels; every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::events_sync {

// What the producer writes at index i for a given round (a fresh seed per round, so a stale
// buffer cannot pass), and what the consumer makes of it.
CUDALAB_HOST_DEVICE inline std::uint32_t produced_value(std::uint32_t i, std::uint32_t seed) {
  return (i * 2654435761u) ^ seed;
}
CUDALAB_HOST_DEVICE inline std::uint32_t consumed_value(std::uint32_t x) { return x * 3u + 7u; }

// One thread: stamps %globaltimer into *start_ns, spins duration_ns, stamps *end_ns, then writes
// `ticket` into *done_flag (host-mapped) as its very last action, so a host thread watching the
// flag sees the moment the work ended on its own clock. Any pointer may be null.
void launch_stamped_spin(cudaStream_t stream, std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns,
                         volatile std::uint32_t* done_flag, std::uint32_t ticket);

// Spins spin_ns (one thread), then the grid writes produced_value(i, seed) for every i.
void launch_producer(cudaStream_t stream, std::uint32_t* data, int count, std::uint32_t seed, std::uint64_t spin_ns);

// out[i] = consumed_value(in[i]).
void launch_consumer(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, int count);

}  // namespace cudalab::events_sync
