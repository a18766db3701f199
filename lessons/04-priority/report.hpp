// Lesson 04's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::priority {

// The high-priority latency must be at most this share of the same-priority one.
inline constexpr double kHighPriorityMaxShare = 0.5;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::priority
