#include "step_runs.hpp"

#include <chrono>

#include "common/core/errors.hpp"
#include "common/core/stats.hpp"

namespace cudalab::graphs {

namespace {

constexpr int kPrimitiveChain = 20;  // ops per chain when timing one primitive

std::vector<double> per_step(std::vector<double> samples_ms, int steps) {
  for (double& s : samples_ms) s = s * 1000.0 / steps;
  return samples_ms;
}


// Median per-op time of `enqueue_one` captured `kPrimitiveChain` times into one graph.
double per_op_in_graph_chain(cudaStream_t stream, const Repetitions& reps,
                             const std::function<void(cudaStream_t)>& enqueue_one) {
  Graph graph = capture(stream, [&](cudaStream_t s) {
    for (int k = 0; k < kPrimitiveChain; ++k) enqueue_one(s);
  });
  GraphExec exec(graph);
  const auto samples = time_on_stream(stream, reps, [&](cudaStream_t s) { exec.launch(s); });
  return median_of(samples) * 1000.0 / kPrimitiveChain;
}

}  // namespace



std::vector<GraphExec> instantiate_serial_graphs(const TrainingStep& step, cudaStream_t stream) {
  // One batch captured on one stream: the pitfall. One exec per batch's buffers, so every launch
  // works on its own batch and each batch's output can be verified; the launch loop is serial.
  std::vector<GraphExec> execs;
  for (int b = 0; b < step.shape().batches; ++b) {
    Graph graph = capture(stream, [&](cudaStream_t s) { step.enqueue_batch(b, s); });
    execs.emplace_back(graph);
  }
  return execs;
}

Graph capture_fork_join(const TrainingStep& step, const StepStreams& streams) {
  return capture(streams.origin(), [&](cudaStream_t) {
    streams.fork();  // the workers join the capture by waiting on an event the origin recorded
    for (int b = 0; b < step.shape().batches; ++b) step.enqueue_batch(b, streams.worker(b % streams.count()));
    streams.join();  // every worker must be joined back before the capture ends
  });
}

MethodRun run_synchronous(const TrainingStep& step, const StepStreams& streams, int steps, const Repetitions& reps) {
  MethodRun run;
  step.poison_outputs();
  run.per_step_us = per_step(time_on_stream(streams.origin(), reps, [&](cudaStream_t s) {
    for (int i = 0; i < steps; ++i) {
      for (int b = 0; b < step.shape().batches; ++b) step.run_batch_synchronously(b, s);
    }
  }), steps);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(streams.origin()));
  run.correct = step.count_correct();
  return run;
}

MethodRun run_multi_stream(const TrainingStep& step, const StepStreams& streams, int steps, const Repetitions& reps) {
  MethodRun run;
  step.poison_outputs();
  run.per_step_us = per_step(time_on_stream(streams.origin(), reps, [&](cudaStream_t) {
    for (int i = 0; i < steps; ++i) {
      streams.fork();
      for (int b = 0; b < step.shape().batches; ++b) step.enqueue_batch(b, streams.worker(b % streams.count()));
      streams.join();
    }
  }), steps);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(streams.origin()));
  run.correct = step.count_correct();
  return run;
}

MethodRun run_graph_serial(const TrainingStep& step, const StepStreams& streams,
                           const std::vector<GraphExec>& per_batch, int steps, const Repetitions& reps) {
  MethodRun run;
  step.poison_outputs();
  run.per_step_us = per_step(time_on_stream(streams.origin(), reps, [&](cudaStream_t s) {
    for (int i = 0; i < steps; ++i) {
      for (const auto& exec : per_batch) exec.launch(s);
    }
  }), steps);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(streams.origin()));
  run.correct = step.count_correct();
  return run;
}

MethodRun run_graph_once_per_step(const TrainingStep& step, const StepStreams& streams, const GraphExec& exec,
                                  int steps, const Repetitions& reps) {
  MethodRun run;
  step.poison_outputs();
  run.per_step_us = per_step(time_on_stream(streams.origin(), reps, [&](cudaStream_t s) {
    for (int i = 0; i < steps; ++i) exec.launch(s);
  }), steps);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(streams.origin()));
  run.correct = step.count_correct();
  return run;
}

DagShape shape_of(cudaGraph_t graph) {
  std::size_t node_count = 0;
  CUDALAB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &node_count));
  std::vector<cudaGraphNode_t> nodes(node_count);
  if (node_count > 0) CUDALAB_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &node_count));
  std::size_t edge_count = 0;
  CUDALAB_CUDA_CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edge_count));
  std::vector<cudaGraphNode_t> from(edge_count), to(edge_count);
  if (edge_count > 0) CUDALAB_CUDA_CHECK(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edge_count));

  auto index_of = [&](cudaGraphNode_t n) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i] == n) return i;
    }
    throw RuntimeError("cudaGraphGetEdges named a node cudaGraphGetNodes did not list");
  };
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  edges.reserve(edge_count);
  for (std::size_t e = 0; e < edge_count; ++e) edges.emplace_back(index_of(from[e]), index_of(to[e]));
  return analyze_dag(node_count, edges);
}

void write_dot(cudaGraph_t graph, const std::string& path) {
  CUDALAB_CUDA_CHECK(cudaGraphDebugDotPrint(graph, path.c_str(), cudaGraphDebugDotFlagsVerbose));
}

LaunchCost measure_launch_cost(int kernels, int replays, const Repetitions& reps) {
  Stream stream;
  LaunchCost cost;
  const double launched = static_cast<double>(kernels) * replays;
  cost.stream_per_kernel_us = time_on_stream(stream, reps, [&](cudaStream_t s) {
    for (int r = 0; r < replays; ++r) launch_empty_kernels(kernels, s);
  });
  for (double& s : cost.stream_per_kernel_us) s = s * 1000.0 / launched;

  cost.capture_instantiate_us = repeat(reps, [&] {
    const auto start = std::chrono::steady_clock::now();
    Graph graph = capture(stream, [&](cudaStream_t s) { launch_empty_kernels(kernels, s); });
    GraphExec exec(graph);
    return host_us_since(start);
  });

  Graph graph = capture(stream, [&](cudaStream_t s) { launch_empty_kernels(kernels, s); });
  GraphExec exec(graph);
  cost.graph_per_kernel_us = time_on_stream(stream, reps, [&](cudaStream_t s) {
    for (int r = 0; r < replays; ++r) exec.launch(s);
  });
  for (double& s : cost.graph_per_kernel_us) s = s * 1000.0 / launched;
  return cost;
}

StepPrimitives measure_primitives(const TrainingStep& step, const Repetitions& reps) {
  Stream stream;
  StepPrimitives p;
  p.h2d_us = per_op_in_graph_chain(stream, reps, [&](cudaStream_t s) { step.enqueue_h2d(0, s); });
  p.kernel_us = per_op_in_graph_chain(stream, reps, [&](cudaStream_t s) { step.enqueue_layer(0, 0, s); });
  p.d2h_us = per_op_in_graph_chain(stream, reps, [&](cudaStream_t s) { step.enqueue_d2h(0, s); });
  return p;
}

}  // namespace cudalab::graphs
