// What stream semantics predict for the same kernels enqueued each way. Pure C++, unit-tested;
// the one input is the time of one kernel alone, measured in the same run.
#pragma once

#include <vector>

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::default_stream {

// The two predictions of a case: every lane's kernels side by side (the longest lane), and what
// the broken way leaves of that (`lost_us`). The report's checks ask which one the measurement is
// nearer.
struct Bounds {
  double overlapped_us = 0;
  double lost_us = 0;
};
// Lanes of `kernels_per_lane` kernels of `alone_us` each; the broken way takes `lost_lengths`
// kernel lengths.
Bounds bounds(double alone_us, int kernels_per_lane, int lost_lengths);

// Kernel lengths of `rounds` rounds of (A, stream 0, B) with blocking A and B. Each stream-0
// kernel is a barrier: it waits for everything issued to A and B before it, and everything
// issued to them after it waits for it. So B's kernel of one round and A's of the next sit
// between the same two barriers and run side by side:
//   A0 | S0 | B0+A1 | S1 | ... | S(n-1) | B(n-1)  ->  2 x rounds + 1 lengths, not 3 x rounds.
int stream0_staircase_lengths(int rounds);

// The share of the way from overlapped (0) to lost (1) that `measured_us` lies; it can fall
// outside [0, 1] (launch gaps, host waits). 0 when the two coincide.
double lost_share(double measured_us, const Bounds& b);

// The runs of `totals_us` that ran side by side: the overlap is lost in whole kernel lengths (a
// kernel that waited for another waited all of it), so a run that lost less than half of one
// (`alone_us`) lost none. The rest ran partly or wholly in a row.
std::vector<double> runs_side_by_side(const std::vector<double>& totals_us, const Bounds& b, double alone_us);

struct Prediction {
  Bounds stream0;  // 3 lanes: A, stream 0, B
  Bounds threads;  // 2 host threads
  // 2 lanes: the per-thread default stream in turns with stream 0 (in a row: the two
  // synchronize) or with a blocking stream (side by side).
  Bounds per_thread;
  Bounds alloc;    // 2 streams
  // Blocking streams around stream 0: the staircase; non-blocking streams overlap.
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
