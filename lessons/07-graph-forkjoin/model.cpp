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
  return {graphs::predict_methods(graphs::methods_of(m.runs), p.shape(), m.inputs.primitives),
          graphs::expected_fork_join_shape(p.shape()),
          graphs::predict_methods(graphs::methods_of(m.fill.runs), m.fill.params.shape(), m.fill.inputs.primitives)};
}

}  // namespace cudalab::graph_forkjoin
