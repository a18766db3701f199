// Lesson 11's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::unified_memory {

// "Prefetching wins back what faulting loses": the prefetched pipeline takes at most this share of
// the on-demand run's time. (Prefetched ≈ explicit was the first guess; on the lab H100 the
// prefetched pipeline took 4 to 5 times the copies' time, so the lesson measures how far it is.)
inline constexpr double kPrefetchedMaxShareOfOnDemand = 0.5;
// "On demand is slower": at least this many times the explicit pipeline's time.
inline constexpr double kOnDemandMinSlowdown = 1.5;
// The sparse read: zero-copy at most this share of copying the whole buffer first.
inline constexpr double kSparseZeroCopyMaxShare = 0.5;
// Faults and the host's page-by-page read back vary more from run to run than copies do; their
// figures may spread this much before they are printed as noisy.
inline constexpr double kFaultSpreadTolerance = 0.25;
// The host's enqueue times are tens of microseconds on the host's own clock, where a thread
// switch alone moves them by half.
inline constexpr double kHostClockSpreadTolerance = 0.5;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::unified_memory
