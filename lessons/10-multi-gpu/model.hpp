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

// What the link carries both ways, and who holds a copy below it. Both directions at once on a
// full-duplex link could each keep their one-way speed; the copy engines may not manage that
// while the SMs, storing straight into the other GPU, do (or the reverse). The most either
// mover carried both ways in the run is what the link was seen to give.
inline constexpr double kFullDuplexShare = 0.9;  // both ways >= 90% of twice one way: full duplex
inline constexpr double kMoverGain = 1.1;        // one mover carrying 10% more than the other
enum class BothWaysLimit {
  full_duplex,   // the copy engines kept their one-way speed in both directions
  copy_engines,  // the SMs carried clearly more both ways: the engines, not the link, held it
  link,          // the SMs carried no more: the link (or what both movers share) held it
  not_measured,  // no SM copies (no peer access)
};
// GB/s in, each a median; sm_both_gbps 0 when the SM copies were not measured.
BothWaysLimit both_ways_limit(double ce_one_way_gbps, double ce_both_gbps, double sm_both_gbps);

// The both-ways prediction: twice one way, but never more than the link was seen to carry both
// ways (the better of the two movers); twice one way alone when only one mover was measured.
double both_ways_prediction_gbps(double one_way_gbps, double ce_both_gbps, double sm_both_gbps);

// The gradient sizes the sweep measures besides --grad-size itself: a sixteenth, a quarter and
// four times it, each kept within --grad-size's range and to whole floats, each once, smallest
// first.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t grad_bytes);

// The model's (a) and (c) at one size of the sweep, from its all-reduce and the layer alone.
struct SweepPrediction {
  double serial_ms = 0;
  double priority_ms = 0;
};

struct Prediction {
  LinkModel link;             // from the small and large one-way copies
  double mid_copy_ms = 0;     // the link model at the mid size
  double both_ways_gbps = 0;     // copy engines both ways: both_ways_prediction_gbps
  double sm_both_ways_gbps = 0;  // SM copies both ways, the same rule from their own one way
  BothWaysLimit both_ways_limit = BothWaysLimit::not_measured;
  double staged_ms = 0;       // the two hops, one after the other
  double serial_ms = 0;       // (a)
  double overlapped_ms = 0;   // (b)
  double priority_ms = 0;     // (c)
  std::vector<SweepPrediction> sweep;  // one per TrainingStep::sweep point
};
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::multi_gpu
