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

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::default_stream
