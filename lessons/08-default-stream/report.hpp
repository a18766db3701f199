// Lesson 08's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::default_stream {

// Where a case's measured time lies between its overlapped (0) and lost (1) predictions
// (model.hpp's lost_share). The overlap counts as lost from kLostMinShare up, and as kept
// up to kKeptMaxShare; in between the run proves neither.
inline constexpr double kLostMinShare = 0.75;
inline constexpr double kKeptMaxShare = 0.25;

// The cudaFree way's time is mostly the host's: each step waits in cudaFree, wakes up and
// enqueues the next. Host wake-ups drift with the host's load (on the lab H100, five processes'
// medians read 1721 to 1852 us, one process moved from 1908 to 1746 us within its seven runs), so
// that figure may spread twice the default 10% before it counts as noisy.
inline constexpr double kHostBoundSpreadTolerance = 0.20;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::default_stream
