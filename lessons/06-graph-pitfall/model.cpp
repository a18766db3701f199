#include "model.hpp"

namespace cudalab::graph_pitfall {

CasePrediction predict_case(const StepCase& c) {
  CasePrediction out;
  out.step_us = graphs::predict_methods(graphs::methods_of(c.runs), c.params.shape(), c.inputs.primitives);
  out.serial_over_multi =
      out.step_us.at(graphs::StepMethod::graph_serial) / out.step_us.at(graphs::StepMethod::multi_stream);
  out.launches_per_step = c.params.batches * graphs::ops_per_batch(c.params.shape());
  out.launch_us_per_step = out.launches_per_step * c.inputs.primitives.stream_launch_us;
  return out;
}

Prediction predict(const Params&, const Measurements& m) {
  Prediction out{predict_case(m.main), predict_case(m.launch_bound), std::nullopt};
  if (m.fill) out.fill = predict_case(*m.fill);
  return out;
}

}  // namespace cudalab::graph_pitfall
