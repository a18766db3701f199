// Lesson 03's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::stream_overlap {

// Overlapped (depth-first) must beat sequential by at least this factor.
inline constexpr double kMinOverlapSpeedup = 1.2;
// With one stream, the chunked run must take at least this share of the sequential time.
inline constexpr double kOneStreamMinShare = 0.85;
// Depth- and breadth-first must land within this share of the engine model.
inline constexpr double kModelTolerance = 0.15;
// Pageable keeps less than this share of the gain pinned memory gets, and at most kPageableMaxGain.
inline constexpr double kPageableGainShare = 0.4;
inline constexpr double kPageableMaxGain = 1.25;
// Each traced lane's busy time within this share of the timed runs.
inline constexpr double kTraceTolerance = 0.10;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::stream_overlap
