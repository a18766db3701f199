// Launch wrappers for lesson 05's kernels; every launch is checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::callbacks {

// What the ordering kernel writes at index i for a given run (the seed changes every run, so a
// stale buffer cannot pass), and what a pipeline batch's kernel makes of its input.
CUDALAB_HOST_DEVICE inline std::uint32_t ordered_value(std::uint32_t i, std::uint32_t seed) {
  return (i * 2654435761u) ^ seed;
}
CUDALAB_HOST_DEVICE inline std::uint32_t batch_transform(std::uint32_t x) { return x * 3u + 7u; }

// One thread answers `rounds` host pings: it waits for *request == r, stamps %globaltimer into
// gpu_ns[r - 1] and sets *reply = r. Gives up after timeout_ns without a ping, so it cannot hang.
void launch_clock_echo(cudaStream_t stream, const volatile std::uint32_t* request, volatile std::uint32_t* reply,
                       std::int64_t* gpu_ns, int rounds, std::uint64_t timeout_ns);

// One block writes ordered_value(i, seed) for every i into `out` (host-mapped), then stamps
// %globaltimer into *end_ns (host-mapped) as its very last action.
void launch_stamped_fill(cudaStream_t stream, std::uint32_t* out, int count, std::uint32_t seed,
                         std::int64_t* end_ns);

// One thread stamps its start, spins for duration_ns and stamps its end.
void launch_timed_spin(cudaStream_t stream, std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns);

// out[i] = batch_transform(in[i]); block 0 also spins spin_ns so a batch has a known GPU cost.
void launch_batch(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, int count, std::uint64_t spin_ns);

}  // namespace cudalab::callbacks
