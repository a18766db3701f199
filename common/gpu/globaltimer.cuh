// The GPU's nanosecond wall clock (%globaltimer), readable from any thread of any kernel. Lessons
// use it for spin blocks of a known duration (clockRate arithmetic breaks when the SM clock
// boosts or throttles) and for time stamps that a host clock can be calibrated against.
#pragma once

#include <cstdint>

namespace cudalab {

__device__ __forceinline__ std::uint64_t global_time_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Busy-waits for `duration_ns` of wall time. Bounded by construction: the timer only moves
// forward, so the loop ends after duration_ns whatever the clocks of the SM do.
__device__ __forceinline__ void spin_for_ns(std::uint64_t duration_ns) {
  const std::uint64_t start = global_time_ns();
  while (global_time_ns() - start < duration_ns) {
  }
}

}  // namespace cudalab
