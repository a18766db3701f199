// What stream semantics predict for the same kernels enqueued each way. Pure C++, unit-tested;
// the one input is the time of one kernel alone, measured in the same run.
#pragma once

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::default_stream {

// The two ends of a case: every lane's kernels side by side (the longest lane), or every kernel
// one after another. What each case predicts is one of them; the report's checks ask which end
// the measurement is nearer.
struct Bounds {
  double overlapped_us = 0;
  double serialized_us = 0;
};
// `lanes` lanes of `kernels_per_lane` kernels of `alone_us` each.
Bounds bounds(double alone_us, int lanes, int kernels_per_lane);

// The share of the way from overlapped (0) to serialized (1) that `measured_us` lies; it can
// fall outside [0, 1] (launch gaps, host waits). 0 when the bounds coincide.
double serialized_share(double measured_us, const Bounds& b);

struct Prediction {
  Bounds stream0;  // 3 lanes: A, stream 0, B
  Bounds threads;  // 2 host threads
  Bounds alloc;    // 2 streams
  // Blocking streams and stream 0 serialize every kernel; non-blocking streams overlap.
  double stream0_blocking_us = 0;
  double stream0_nonblocking_us = 0;
  // Both threads on stream 0 share one queue; per-thread default streams are two.
  double threads_legacy_us = 0;
  double threads_per_thread_us = 0;
  // cudaFree waits for the device, so no two steps overlap; the stream-ordered pair waits for nothing.
  double alloc_sync_us = 0;
  double alloc_async_us = 0;
};
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::default_stream
