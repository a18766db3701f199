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
// At 32 MiB five lone processes on the H100 read 26% to 51% of the on-demand time; 75% keeps the
// claim (prefetching wins back what faulting loses) without sitting on the edge of the spread.
inline constexpr double kPrefetchedMaxShareOfOnDemand = 0.75;
// On demand / explicit varies from process to process as the driver's fault handling does: lone
// processes on the H100 read 4.96 to 16.8 over two sessions. It is shown, not held (the headline
// holds zero-copy's ratio); `compare` marks its row against this wider band than a copy's.
inline constexpr double kOnDemandCompareTolerance = 0.35;
// "On demand is slower": at least this many times the explicit pipeline's time.
inline constexpr double kOnDemandMinSlowdown = 1.5;
// The sparse read: zero-copy at most this share of copying the whole buffer first.
inline constexpr double kSparseZeroCopyMaxShare = 0.5;
// Faults and the host's page-by-page read back vary more from run to run than copies do; their
// figures may spread this much before they are printed as noisy.
// (Five lone processes at 32 MiB: the on-demand run spread up to 46% within one of them.)
inline constexpr double kFaultSpreadTolerance = 0.5;
// The host's enqueue times are tens of microseconds on the host's own clock, where a thread
// switch alone moves them by half.
inline constexpr double kHostClockSpreadTolerance = 0.5;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::unified_memory
