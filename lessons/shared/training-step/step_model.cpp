#include "step_model.hpp"

#include <algorithm>

namespace cudalab::graphs {

double predict_step_us(StepMethod method, const StepShape& shape, const StepPrimitives& p) {
  std::vector<Stage> stages;
  stages.push_back({OpKind::h2d, p.h2d_us});
  for (int l = 0; l < shape.layers; ++l) stages.push_back({OpKind::kernel, p.kernel_us});
  stages.push_back({OpKind::d2h, p.d2h_us});

  const bool parallel = method == StepMethod::multi_stream || method == StepMethod::graph_fork_join;
  const bool graph = method == StepMethod::graph_serial || method == StepMethod::graph_fork_join;
  const int streams = parallel ? shape.streams : 1;

  EngineConfig config;
  config.copy_engines = p.copy_engines;
  // Small kernels from different streams share the SMs; on one stream they run one at a time.
  config.concurrent_kernels = parallel ? std::max(1, std::min(streams, p.max_concurrent_kernels)) : 1;
  // A stream pays the host's launch cost per op; a graph pays its (smaller) per-node cost.
  config.launch_overhead = graph ? p.graph_node_us : p.stream_launch_us;
  config.hardware_queues = p.hardware_queues;

  const auto ops = batch_chain_ops(shape.batches, streams, stages, method == StepMethod::synchronous);
  return simulate(ops, config).makespan;
}

const char* method_name(StepMethod method) {
  switch (method) {
    case StepMethod::synchronous:
      return "synchronous";
    case StepMethod::multi_stream:
      return "multi-stream";
    case StepMethod::graph_serial:
      return "graph-serial";
    case StepMethod::graph_fork_join:
      return "graph-forkjoin";
  }
  return "?";
}

std::map<StepMethod, double> predict_methods(const std::vector<StepMethod>& methods, const StepShape& shape,
                                             const StepPrimitives& p) {
  std::map<StepMethod, double> out;
  for (StepMethod m : methods) out[m] = predict_step_us(m, shape, p);
  return out;
}

DagShape expected_fork_join_shape(const StepShape& shape) {
  const std::size_t chains = static_cast<std::size_t>(std::min(shape.batches, shape.streams));
  const auto per_batch = static_cast<std::size_t>(ops_per_batch(shape));
  const std::size_t longest_chain_batches =
      static_cast<std::size_t>((shape.batches + shape.streams - 1) / shape.streams);
  DagShape d;
  d.nodes = static_cast<std::size_t>(shape.batches) * per_batch;
  d.edges = d.nodes - chains;
  d.width = chains;
  d.widest_level = chains;
  d.critical_path = longest_chain_batches * per_batch;
  d.roots = chains;
  d.leaves = chains;
  return d;
}

}  // namespace cudalab::graphs
