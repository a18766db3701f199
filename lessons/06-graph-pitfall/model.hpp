// Lesson 06's predictions (pure): each method's step time from the engine model, for each case,
// and how much of a multi-stream step the host spends launching.
#pragma once

#include <map>
#include <optional>

#include "measure.hpp"

namespace cudalab::graph_pitfall {

struct CasePrediction {
  std::map<graphs::StepMethod, double> step_us;
  double serial_over_multi = 0;   // graph-serial / multi-stream
  int launches_per_step = 0;      // ops the host launches for one multi-stream step
  double launch_us_per_step = 0;  // those launches at the measured stream launch cost
};

struct Prediction {
  CasePrediction main;
  CasePrediction launch_bound;
  std::optional<CasePrediction> fill;  // --full; fed max_concurrent_kernels = 1 by its measurement: a filling kernel runs alone
};

CasePrediction predict_case(const StepCase& c);
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::graph_pitfall
