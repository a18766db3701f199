// Lesson 07's predictions (pure): each method's step time, the DAG fork/join must give, and
// after how many replays a graph repays its capture and instantiation.
#pragma once

#include <map>
#include <optional>

#include "measure.hpp"

namespace cudalab::graph_forkjoin {

struct Prediction {
  std::map<graphs::StepMethod, double> step_us;
  DagShape expected;
  std::map<graphs::StepMethod, double> fill_step_us;  // the fill case (--full), run one kernel at a time
};

// Replays before capture + instantiate is repaid by the cheaper launches; nullopt: never.
std::optional<double> payback_replays(double stream_us_per_kernel, double graph_us_per_kernel, int kernels,
                                      double build_us);

Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::graph_forkjoin
