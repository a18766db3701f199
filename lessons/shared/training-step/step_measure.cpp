#include "step_measure.hpp"

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/traced_run.hpp"

namespace cudalab::graphs {

ModelInputs measure_model_inputs(const TrainingStep& step, const DeviceInfo& device, const Repetitions& reps) {
  ModelInputs in;
  in.primitives = measure_primitives(step, reps);
  in.chain20 = measure_launch_cost(kChainKernels, kChainReplays, reps);
  in.primitives.stream_launch_us = median_of(in.chain20.stream_per_kernel_us);
  in.primitives.graph_node_us = median_of(in.chain20.graph_per_kernel_us);
  in.primitives.copy_engines = device.async_engine_count;
  in.primitives.max_concurrent_kernels = device.concurrent_kernels ? 128 : 1;  // CUDA's limit on sm_90
  // A filling kernel takes every resident slot: the next kernel of another stream starts only as
  // its blocks retire, so to the model kernels run one at a time, whatever the device allows.
  if (step.kernel() == LayerKernel::fill) in.primitives.max_concurrent_kernels = 1;
  in.footprint = step.footprint();
  return in;
}

StepCase measure_case(const StepParams& p, const std::vector<StepMethod>& methods, const DeviceInfo& device,
                      const Repetitions& reps) {
  const TrainingStep step = in_phase("step setup", [&] { return TrainingStep(p.shape(), p.features, 1, p.layer_kernel()); });
  return measure_case(p, step, StepStreams(p.streams), methods, device, reps);
}

StepCase measure_case(const StepParams& p, const TrainingStep& step, const StepStreams& streams,
                      const std::vector<StepMethod>& methods, const DeviceInfo& device, const Repetitions& reps) {
  StepCase c{p, step.elements(), in_phase("model inputs", [&] { return measure_model_inputs(step, device, reps); }), {}};
  c.runs = run_methods(methods, step, streams, p.steps, reps);
  return c;
}

MethodRun run_method(StepMethod method, const TrainingStep& step, const StepStreams& streams, int steps,
                     const Repetitions& reps) {
  switch (method) {
    case StepMethod::synchronous:
      return run_synchronous(step, streams, steps, reps);
    case StepMethod::multi_stream:
      return run_multi_stream(step, streams, steps, reps);
    case StepMethod::graph_serial:
      return run_graph_serial(step, streams, instantiate_serial_graphs(step, streams.origin()), steps, reps);
    case StepMethod::graph_fork_join: {
      const GraphExec exec(capture_fork_join(step, streams));
      return run_graph_once_per_step(step, streams, exec, steps, reps);
    }
  }
  return {};
}

MethodRuns run_methods(const std::vector<StepMethod>& methods, const TrainingStep& step, const StepStreams& streams,
                       int steps, const Repetitions& reps) {
  MethodRuns runs;
  for (StepMethod m : methods) {
    runs[m] = in_phase(fmt::format("method {}", static_cast<int>(m)), [&] { return run_method(m, step, streams, steps, reps); });
  }
  return runs;
}

void trace_method(std::vector<Timeline>& timelines, StepMethod method, const TrainingStep& step,
                  const StepStreams& streams, const Message& title) {
  // Only streams that carry work get a lane: graphs are launched into the origin, plain
  // multi-stream code queues each batch on a worker (the origin only forks and joins).
  std::vector<NamedLane> lanes;
  if (method == StepMethod::graph_serial || method == StepMethod::graph_fork_join) {
    lanes.push_back({streams.origin(), "graph launches"});
  } else {
    for (int w = 0; w < streams.count(); ++w) lanes.push_back({streams.worker(w), msg("stream {id}", arg("id", w))});
  }
  traced_run(timelines, title, lanes,
             [&](TraceSession&) { (void)run_method(method, step, streams, 1, Repetitions{0, 1, false}); });
}

}  // namespace cudalab::graphs
