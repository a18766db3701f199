#include "model.hpp"

#include "common/model/stats.hpp"

namespace cudalab::default_stream {

Bounds bounds(double alone_us, int lanes, int kernels_per_lane) {
  return Bounds{alone_us * kernels_per_lane, alone_us * kernels_per_lane * lanes};
}

double serialized_share(double measured_us, const Bounds& b) {
  const double span = b.serialized_us - b.overlapped_us;
  return span > 0 ? (measured_us - b.overlapped_us) / span : 0.0;
}

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  if (m.alone.total_us.empty()) return out;
  const double alone = median_of(m.alone.total_us);
  out.stream0 = bounds(alone, 3, p.kernels);
  out.threads = bounds(alone, 2, p.kernels);
  out.alloc = bounds(alone, 2, p.kernels);
  out.stream0_blocking_us = out.stream0.serialized_us;
  out.stream0_nonblocking_us = out.stream0.overlapped_us;
  out.threads_legacy_us = out.threads.serialized_us;
  out.threads_per_thread_us = out.threads.overlapped_us;
  out.alloc_sync_us = out.alloc.serialized_us;
  out.alloc_async_us = out.alloc.overlapped_us;
  return out;
}

}  // namespace cudalab::default_stream
