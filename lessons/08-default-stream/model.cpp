#include "model.hpp"

#include "common/core/stats.hpp"

namespace cudalab::default_stream {

Bounds bounds(double alone_us, int kernels_per_lane, int lost_lengths) {
  return Bounds{alone_us * kernels_per_lane, alone_us * lost_lengths};
}

int stream0_staircase_lengths(int rounds) { return 2 * rounds + 1; }

double lost_share(double measured_us, const Bounds& b) {
  const double span = b.lost_us - b.overlapped_us;
  return span > 0 ? (measured_us - b.overlapped_us) / span : 0.0;
}

std::vector<double> runs_side_by_side(const std::vector<double>& totals_us, const Bounds& b, double alone_us) {
  std::vector<double> out;
  for (double us : totals_us) {
    if (us - b.overlapped_us < 0.5 * alone_us) out.push_back(us);
  }
  return out;
}

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  if (m.alone.total_us.empty()) return out;
  const double alone = median_of(m.alone.total_us);
  const int k = p.kernels;
  out.stream0 = bounds(alone, k, stream0_staircase_lengths(k));
  out.threads = bounds(alone, k, 2 * k);  // one queue: every kernel in a row
  out.per_thread = bounds(alone, k, 2 * k);  // each stream-0 kernel waits for the per-thread one and back
  out.alloc = bounds(alone, k, 2 * k);    // every free waits: every step in a row
  out.stream0_blocking_us = out.stream0.lost_us;
  out.stream0_nonblocking_us = out.stream0.overlapped_us;
  out.threads_legacy_us = out.threads.lost_us;
  out.threads_per_thread_us = out.threads.overlapped_us;
  out.alloc_sync_us = out.alloc.lost_us;
  out.alloc_async_us = out.alloc.overlapped_us;
  return out;
}

}  // namespace cudalab::default_stream
