// Lesson 07's report (pure): thresholds here, every decision unit-tested with made-up runs.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::graph_forkjoin {

// A 20-kernel graph must cost at most a third per kernel of launching the kernels from a stream.
inline constexpr double kGraphLaunchAdvantage = 3.0;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::graph_forkjoin
