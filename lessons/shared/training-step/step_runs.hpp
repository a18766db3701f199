// Host-side orchestration shared by lessons 06 and 07: the four ways to run a training step,
// each timed over `steps` steps and verified; graph capture (serial and fork/join); reading a
// graph's shape back from CUDA; launch-overhead and primitive measurements for the model.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/model/graph_shape.hpp"
#include "common/gpu/timing.hpp"
#include "common/gpu/streams.hpp"
#include "step_results.hpp"
#include "training_step.hpp"

namespace cudalab::graphs {

// Streams and events a run uses: the origin stream (where timing events and graph launches
// go) and S worker streams joined back into it by events.
class StepStreams {
 public:
  explicit StepStreams(int workers) : workers_(workers) {}
  cudaStream_t origin() const { return origin_.get(); }
  cudaStream_t worker(int i) const { return workers_.worker(i).get(); }
  int count() const { return workers_.count(); }
  // origin -> every worker (fork) and every worker -> origin (join), in stream order.
  void fork() const { workers_.fork(origin_); }
  void join() const { workers_.join(origin_); }

 private:
  Stream origin_;
  ForkJoin workers_;
};

// The graphs of the two graph methods.
std::vector<GraphExec> instantiate_serial_graphs(const TrainingStep& step, cudaStream_t stream);
Graph capture_fork_join(const TrainingStep& step, const StepStreams& streams);

MethodRun run_synchronous(const TrainingStep& step, const StepStreams& streams, int steps, const Repetitions& reps);
MethodRun run_multi_stream(const TrainingStep& step, const StepStreams& streams, int steps, const Repetitions& reps);
MethodRun run_graph_serial(const TrainingStep& step, const StepStreams& streams,
                           const std::vector<GraphExec>& per_batch, int steps, const Repetitions& reps);
MethodRun run_graph_once_per_step(const TrainingStep& step, const StepStreams& streams, const GraphExec& exec,
                                  int steps, const Repetitions& reps);

// The shape of a CUDA graph (cudaGraphGetNodes / cudaGraphGetEdges), analysed on the host.
DagShape shape_of(cudaGraph_t graph);

// Writes cudaGraphDebugDotPrint output; throws RuntimeError when it fails.
void write_dot(cudaGraph_t graph, const std::string& path);

// A chain of `kernels` empty kernels launched `replays` times from a stream, and the same chain
// captured as a graph and launched `replays` times: time per kernel in microseconds.
LaunchCost measure_launch_cost(int kernels, int replays, const Repetitions& reps);

// Per-op durations of the step's pieces for the engine model, each from a graph chain of the
// same op (so the host's launch cost is not in them).
StepPrimitives measure_primitives(const TrainingStep& step, const Repetitions& reps);


}  // namespace cudalab::graphs
