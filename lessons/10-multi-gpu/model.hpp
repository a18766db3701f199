// What a link model and a pipeline model predict for lesson 10. Pure C++, unit-tested; the
// inputs are measured in the same run.
#pragma once

#include <cstdint>
#include <vector>

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::multi_gpu {

// Blocks for one layer kernel: whole waves of `block_us` blocks filling every SM, enough waves
// to last `layer_us` (at least one). Throws std::invalid_argument on non-positive inputs.
int layer_block_count(int sm_count, int blocks_per_sm, int layer_us, int block_us);

// A copy as a fixed start-up cost plus bytes over a bandwidth: the start-up cost is the time of
// a tiny copy, the bandwidth what is left of a large one.
struct LinkModel {
  double latency_ms = 0;
  double bytes_per_ms = 0;
  double copy_ms(std::uint64_t bytes) const;
};
LinkModel fit_link(std::uint64_t small_bytes, double small_ms, std::uint64_t large_bytes, double large_ms);

// GB/s (1e9 bytes per second) for `bytes` in `ms`; 0 when ms is not positive.
double gigabytes_per_s(std::uint64_t bytes, double ms);

// (a) one stream: every layer, then every all-reduce.
double serial_step_ms(const std::vector<double>& layer_ms, const std::vector<double>& allreduce_ms);

// (b), (c) a comm stream beside the compute stream. All-reduce l starts when its layer is done
// and all-reduce l-1 has finished. With `waits_for_next_layer` (same priority) it also waits for
// layer l+1, whose blocks were queued first and fill the GPU: the block scheduler serves them
// before the all-reduce's. A high-priority comm stream jumps that queue. The step ends when both
// streams are done. Throws std::invalid_argument when the two lists differ in length.
double overlapped_step_ms(const std::vector<double>& layer_ms, const std::vector<double>& allreduce_ms,
                          bool waits_for_next_layer);

struct Prediction {
  LinkModel link;             // from the small and large one-way copies
  double mid_copy_ms = 0;     // the link model at the mid size
  double both_ways_ms = 0;    // both directions at once: a full-duplex link takes as long as one
  double staged_ms = 0;       // the two hops, one after the other
  double serial_ms = 0;       // (a)
  double overlapped_ms = 0;   // (b)
  double priority_ms = 0;     // (c)
};
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::multi_gpu
