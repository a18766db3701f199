#include "model.hpp"

#include <cmath>

namespace cudalab::graph_forkjoin {

std::optional<double> payback_replays(double stream_us_per_kernel, double graph_us_per_kernel, int kernels,
                                      double build_us) {
  const double saved_per_replay = (stream_us_per_kernel - graph_us_per_kernel) * kernels;
  if (saved_per_replay <= 0) return std::nullopt;
  return std::ceil(build_us / saved_per_replay);
}

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out{graphs::predict_methods(graphs::methods_of(m.runs), p.shape(), m.inputs.primitives),
                 graphs::expected_fork_join_shape(p.shape()),
                 {}};
  if (m.fill) out.fill_step_us = graphs::predict_methods(graphs::methods_of(m.fill->runs), m.fill->params.shape(), m.fill->inputs.primitives);
  return out;
}

}  // namespace cudalab::graph_forkjoin
