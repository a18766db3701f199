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
// The lecture design's overlap factor may exceed the 3N/(N+2) ceiling by at most this share.
inline constexpr double kCeilingSlack = 0.05;

// How the lecture-05 speed-up splits: pageable-sequential -> pinned-sequential (pinning), then
// pinned-sequential -> pinned-4-streams (overlap). The factors multiply to the total.
struct LectureSplit {
  double total = 0;     // pageable one stream / pinned four streams
  double pinning = 0;   // pageable one stream / pinned one stream
  double overlap = 0;   // pinned one stream / pinned four streams
  double pinning_share = 0;  // ln(pinning) / ln(total): the part of the speed-up pinning explains
};
LectureSplit split_lecture_speedup(double pageable_ms, double pinned_ms, double streams_ms);

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::stream_overlap
