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

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  const PeerCopies& c = m.copies;
  out.link = fit_link(c.small_bytes, median_of(c.small_ms), c.large_bytes, median_of(c.large_ms));
  out.mid_copy_ms = out.link.copy_ms(c.mid_bytes);
  out.both_ways_ms = median_of(c.large_ms);
  out.staged_ms = median_of(c.d2h_ms) + median_of(c.h2d_ms);

  const auto layers = static_cast<std::size_t>(p.layers);
  const std::vector<double> layer(layers, median_of(m.step.layer_ms));
  const std::vector<double> allreduce(layers, median_of(m.step.allreduce_ms));
  out.serial_ms = serial_step_ms(layer, allreduce);
  out.overlapped_ms = overlapped_step_ms(layer, allreduce, /*waits_for_next_layer=*/true);
  out.priority_ms = overlapped_step_ms(layer, allreduce, /*waits_for_next_layer=*/false);
  return out;
}

}  // namespace cudalab::multi_gpu
