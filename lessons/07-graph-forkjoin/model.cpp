#include "model.hpp"

#include <cmath>

namespace cudalab::graph_forkjoin {

std::optional<double> payback_replays(double stream_us_per_kernel, double graph_us_per_kernel, int kernels,
                                      double build_us) {
  const double saved_per_replay = (stream_us_per_kernel - graph_us_per_kernel) * kernels;
  if (saved_per_replay <= 0) return std::nullopt;
  return std::ceil(build_us / saved_per_replay);
}

namespace {

std::map<graphs::StepMethod, double> predict_runs(const graphs::MethodRuns& runs, const graphs::StepShape& shape,
                                                  const graphs::StepPrimitives& primitives) {
  std::vector<graphs::StepMethod> methods;
  for (const auto& run : runs) methods.push_back(run.first);
  return graphs::predict_methods(methods, shape, primitives);
}

}  // namespace

Prediction predict(const Params& p, const Measurements& m) {
  return {predict_runs(m.runs, p.shape(), m.inputs.primitives), graphs::expected_fork_join_shape(p.shape()),
          predict_runs(m.fill.runs, m.fill.params.shape(), m.fill.inputs.primitives)};
}

}  // namespace cudalab::graph_forkjoin
