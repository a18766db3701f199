#include "model.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "common/core/stats.hpp"

namespace cudalab::multi_gpu {

int layer_block_count(int sm_count, int blocks_per_sm, int layer_us, int block_us) {
  if (sm_count <= 0 || blocks_per_sm <= 0 || layer_us <= 0 || block_us <= 0) {
    throw std::invalid_argument("layer_block_count: every input must be positive");
  }
  const int waves = std::max(1, layer_us / block_us);
  return sm_count * blocks_per_sm * waves;
}

double LinkModel::copy_ms(std::uint64_t bytes) const {
  return latency_ms + (bytes_per_ms > 0 ? static_cast<double>(bytes) / bytes_per_ms : 0.0);
}

LinkModel fit_link(std::uint64_t small_bytes, double small_ms, std::uint64_t large_bytes, double large_ms) {
  LinkModel link;
  link.latency_ms = std::max(0.0, small_ms);
  const double transfer_ms = large_ms - link.latency_ms;
  if (large_bytes > small_bytes && transfer_ms > 0) {
    link.bytes_per_ms = static_cast<double>(large_bytes - small_bytes) / transfer_ms;
  }
  return link;
}

double gigabytes_per_s(std::uint64_t bytes, double ms) {
  return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0;
}

double serial_step_ms(const std::vector<double>& layer_ms, const std::vector<double>& allreduce_ms) {
  return std::accumulate(layer_ms.begin(), layer_ms.end(), 0.0) +
         std::accumulate(allreduce_ms.begin(), allreduce_ms.end(), 0.0);
}

double overlapped_step_ms(const std::vector<double>& layer_ms, const std::vector<double>& allreduce_ms,
                          bool waits_for_next_layer) {
  if (layer_ms.size() != allreduce_ms.size()) {
    throw std::invalid_argument("overlapped_step_ms: one all-reduce per layer");
  }
  const std::size_t layers = layer_ms.size();
  std::vector<double> layer_end(layers);
  double t = 0;
  for (std::size_t l = 0; l < layers; ++l) layer_end[l] = t += layer_ms[l];
  double comm_end = 0;
  for (std::size_t l = 0; l < layers; ++l) {
    const std::size_t gate = waits_for_next_layer ? std::min(l + 1, layers - 1) : l;
    comm_end = std::max(layer_end[gate], comm_end) + allreduce_ms[l];
  }
  return std::max(layers == 0 ? 0.0 : layer_end.back(), comm_end);
}

BothWaysLimit both_ways_limit(double ce_one_way_gbps, double ce_both_gbps, double sm_both_gbps) {
  if (ce_both_gbps >= kFullDuplexShare * 2.0 * ce_one_way_gbps) return BothWaysLimit::full_duplex;
  if (sm_both_gbps <= 0) return BothWaysLimit::not_measured;
  return sm_both_gbps >= kMoverGain * ce_both_gbps ? BothWaysLimit::copy_engines : BothWaysLimit::link;
}

double both_ways_prediction_gbps(double one_way_gbps, double ce_both_gbps, double sm_both_gbps) {
  const double full_duplex = 2.0 * one_way_gbps;
  if (sm_both_gbps <= 0) return full_duplex;
  return std::min(full_duplex, std::max(ce_both_gbps, sm_both_gbps));
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t grad_bytes) {
  std::vector<std::uint64_t> sizes;
  for (const std::uint64_t candidate : {grad_bytes / 16, grad_bytes / 4, grad_bytes * 4}) {
    const std::uint64_t kept = std::clamp(candidate, kMinGradBytes, kMaxGradBytes) / sizeof(float) * sizeof(float);
    if (kept != grad_bytes && std::find(sizes.begin(), sizes.end(), kept) == sizes.end()) sizes.push_back(kept);
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

namespace {

// The peer copies' predictions; none with one process per GPU, which copies nothing.
void predict_copies(const PeerCopies& c, Prediction& out) {
  if (c.large_ms.empty() || c.small_ms.empty()) return;
  out.link = fit_link(c.small_bytes, median_of(c.small_ms), c.large_bytes, median_of(c.large_ms));
  out.mid_copy_ms = out.link.copy_ms(c.mid_bytes);
  const double one_way = gigabytes_per_s(c.large_bytes, median_of(c.large_ms));
  const double both = gigabytes_per_s(2 * c.large_bytes, median_of(c.both_ms));
  const bool sm_measured = !c.sm_one_way_ms.empty() && !c.sm_both_ms.empty();
  const double sm_one_way = sm_measured ? gigabytes_per_s(c.large_bytes, median_of(c.sm_one_way_ms)) : 0.0;
  const double sm_both = sm_measured ? gigabytes_per_s(2 * c.large_bytes, median_of(c.sm_both_ms)) : 0.0;
  out.both_ways_gbps = both_ways_prediction_gbps(one_way, both, sm_both);
  out.sm_both_ways_gbps = sm_measured ? both_ways_prediction_gbps(sm_one_way, both, sm_both) : 0.0;
  out.both_ways_limit = both_ways_limit(one_way, both, sm_both);
  out.staged_ms = median_of(c.d2h_ms) + median_of(c.h2d_ms);
}

}  // namespace

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  predict_copies(m.copies, out);

  const auto layers = static_cast<std::size_t>(p.layers);
  const std::vector<double> layer(layers, median_of(m.step.layer_ms));
  const std::vector<double> allreduce(layers, median_of(m.step.allreduce_ms));
  out.serial_ms = serial_step_ms(layer, allreduce);
  out.overlapped_ms = overlapped_step_ms(layer, allreduce, /*waits_for_next_layer=*/true);
  out.priority_ms = overlapped_step_ms(layer, allreduce, /*waits_for_next_layer=*/false);
  for (const auto& point : m.step.sweep) {
    const std::vector<double> compute(layers, median_of(point.layer_ms));
    const std::vector<double> comm(layers, median_of(point.allreduce_ms));
    out.sweep.push_back({serial_step_ms(compute, comm), overlapped_step_ms(compute, comm, false)});
  }
  return out;
}

}  // namespace cudalab::multi_gpu
