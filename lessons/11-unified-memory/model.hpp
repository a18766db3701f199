// What lesson 11 predicts for each way, from figures the same run measured: the copy engines'
// bandwidths (one chunk's copies), the kernel's time on device memory, and a cost per page
// fault fitted to the on-demand runs on part of the buffer. Pure C++, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/core/timeline.hpp"
#include "measure.hpp"
#include "params.hpp"

namespace cudalab::unified_memory {

// Bytes moved in `ms` milliseconds, in GB/s (10^9 bytes per second).
double gigabytes_per_second(double bytes, double ms);
// Milliseconds to move `bytes` at `gb_per_s`.
double transfer_ms(double bytes, double gb_per_s);

// The on-demand way's two parts, each a straight line in the pages it touches: a fixed cost and
// a cost per page. Each page's cost is its bytes at the copy engine's bandwidth, the kernel's own
// time for it (GPU side), and what is left: the fault, the driver's work for it.
struct FaultFit {
  double kernel_fixed_ms = 0, kernel_ms_per_page = 0;  // the kernel, its input faulting in
  double host_fixed_ms = 0, host_ms_per_page = 0;      // the host's first read of each output page
  double gpu_fault_us = 0;   // per page, beyond its bytes at the H2D bandwidth and the kernel's time
  double host_fault_us = 0;  // per page, beyond its bytes at the D2H bandwidth
};
// Fitted to two or more probes of different sizes (their medians). Throws std::invalid_argument
// with fewer than two distinct page counts.
FaultFit fit_faults(const std::vector<FaultProbe>& probes, double page_bytes, double h2d_gb_per_s,
                    double d2h_gb_per_s, double kernel_ms_per_page);

// Copy first, one stream: the input over the bus, the kernel, the output back.
double predict_copy_first_ms(double in_bytes, double out_bytes, double h2d_gb_per_s, double d2h_gb_per_s,
                             double kernel_ms);
// Zero-copy: the kernel's reads cross the bus one way while its writes cross the other, so the
// larger of the two sets the time; the kernel's arithmetic hides under the transfer.
double predict_zero_copy_ms(double read_bytes, double written_bytes, double h2d_gb_per_s, double d2h_gb_per_s);

// The smallest reuse at and beyond which zero-copy is slower than copying first, over reuses
// measured in ascending order with the two ways' times; nullopt when it is not slower at the
// largest, or not slower from some reuse on to the largest.
std::optional<int> crossover_reuse(const std::vector<int>& reuses, const std::vector<double>& copy_first_ms,
                                   const std::vector<double>& zero_copy_ms);

// What a traced run shows of unified memory: how many faults and migrations, and the bytes moved.
struct MigrationTally {
  std::size_t gpu_faults = 0;  // records of GPU page-fault groups
  std::size_t cpu_faults = 0;
  std::size_t h2d_migrations = 0, d2h_migrations = 0;
  std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
};
MigrationTally tally_migrations(const Timeline& t);

struct Prediction {
  double h2d_gb_per_s = 0, d2h_gb_per_s = 0;
  double explicit_ms = 0;    // the engine model, from one chunk's stages
  double prefetched_ms = 0;  // the same: a prefetch is a copy on a copy engine
  FaultFit faults;
  double on_demand_kernel_ms = 0, on_demand_host_ms = 0;  // the fitted lines at the whole buffer
  double on_demand_ms() const { return on_demand_kernel_ms + on_demand_host_ms; }
  std::vector<double> copy_first_ms, zero_copy_ms;  // per reuse of the sweep
  std::optional<int> crossover;                     // from the predicted times
  double sparse_copy_first_ms = 0, sparse_zero_copy_ms = 0;
};

Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::unified_memory
