#include "model.hpp"

namespace cudalab::graph_pitfall {

CasePrediction predict_case(const StepCase& c) {
  CasePrediction out;
  std::vector<graphs::StepMethod> methods;
  for (const auto& run : c.runs) methods.push_back(run.first);
  out.step_us = graphs::predict_methods(methods, c.params.shape(), c.inputs.primitives);
  out.serial_over_multi =
      out.step_us.at(graphs::StepMethod::graph_serial) / out.step_us.at(graphs::StepMethod::multi_stream);
  // Per batch: its H2D, its layer kernels and its D2H.
  out.launches_per_step = c.params.batches * (c.params.layers + 2);
  out.launch_us_per_step = out.launches_per_step * c.inputs.primitives.stream_launch_us;
  return out;
}

Prediction predict(const Params&, const Measurements& m) {
  return {predict_case(m.main), predict_case(m.launch_bound), predict_case(m.fill)};
}

}  // namespace cudalab::graph_pitfall
