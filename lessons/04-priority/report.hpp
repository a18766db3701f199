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

// The lecture's demo: its kernels run 2000 and 1000 iterations, so alone their times must differ
// by a factor in [kWorkRatioMin, kWorkRatioMax]: the work, not the priority.
inline constexpr double kWorkRatioMin = 1.8;
inline constexpr double kWorkRatioMax = 2.2;
// Priority must show as the short kernel's latency: with its stream most urgent, at most this
// share of its latency when the long kernel's stream is the urgent one.
inline constexpr double kPriorityShortMaxShare = 0.75;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::priority
