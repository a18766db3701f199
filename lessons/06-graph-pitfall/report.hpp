// Lesson 06's report (pure): thresholds here, every decision unit-tested with made-up runs.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::graph_pitfall {

// A step is launch-bound when the host's launching takes at least this share of it.
inline constexpr double kLaunchBoundShare = 0.5;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::graph_pitfall
