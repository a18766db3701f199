#include "measure.hpp"

#include "lessons/shared/training-step/step_measure.hpp"

#include <chrono>

#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_check.hpp"

namespace cudalab::graph_forkjoin {

namespace {

using namespace graphs;

std::size_t run_and_count(const TrainingStep& step, const GraphExec& exec, cudaStream_t stream) {
  step.poison_outputs();
  exec.launch(stream);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return step.count_correct();
}

void measure_dag(Measurements& m, const Params& p, const TrainingStep& step, const StepStreams& streams) {
  const Graph captured = capture_fork_join(step, streams);
  ExplicitStepGraph built = build_step_graph(step);
  m.captured = shape_of(captured.get());
  m.built = shape_of(built.graph.get());
  if (!p.dot.empty()) write_dot(captured.get(), p.dot);
  const GraphExec exec(built.graph);  // the explicit graph must compute the same step
  m.explicit_correct = run_and_count(step, exec, streams.origin());
}

// Host time of a repeated action, alternating between two steps' buffers.
template <typename Action>
std::vector<double> host_times(const Repetitions& reps, Action&& action) {
  int flip = 0;
  return repeat(reps, [&] {
    const auto start = std::chrono::steady_clock::now();
    action(flip++ % 2);
    return host_us_since(start);
  });
}

// Only the buffers change (another step's inputs and outputs): update the instantiated graph in
// place, capture again and update, or capture again and instantiate again.
UpdateCosts measure_update(const Params& p, const TrainingStep& step, const StepStreams& streams, const Repetitions& reps) {
  UpdateCosts u;
  const TrainingStep other(p.shape(), p.features, 2, p.layer_kernel());
  const TrainingStep* targets[2] = {&other, &step};
  ExplicitStepGraph built = build_step_graph(step);
  GraphExec explicit_exec(built.graph);
  u.set_params_us = host_times(reps, [&](int i) { retarget_step_exec(explicit_exec.get(), built, *targets[i]); });
  retarget_step_exec(explicit_exec.get(), built, other);
  u.set_params_correct = run_and_count(other, explicit_exec, streams.origin());

  GraphExec captured_exec(capture_fork_join(step, streams));
  auto update_to = [&](const TrainingStep& target) {
    const Graph fresh = capture_fork_join(target, streams);
    cudaGraphExecUpdateResultInfo info{};
    CUDALAB_CUDA_CHECK(cudaGraphExecUpdate(captured_exec.get(), fresh.get(), &info));
  };
  u.exec_update_us = host_times(reps, [&](int i) { update_to(*targets[i]); });
  update_to(other);
  u.exec_update_correct = run_and_count(other, captured_exec, streams.origin());

  u.reinstantiate_us = host_times(reps, [&](int i) { const GraphExec exec(capture_fork_join(*targets[i], streams)); });
  const GraphExec fresh_exec(capture_fork_join(other, streams));
  u.reinstantiate_correct = run_and_count(other, fresh_exec, streams.origin());
  return u;
}

// Lecture 000 quotes "about 5 us per cudaMemcpyAsync": the host time of one small pinned copy
// call, averaged over a chain of 20 calls (the copies themselves run afterwards).
std::vector<double> measure_memcpy_async_call(const Repetitions& reps) {
  constexpr int kCalls = 20;
  const Stream stream;
  PinnedBuffer<int> host(1024);
  DeviceBuffer<int> device(1024);
  return repeat(reps, [&] {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), device.bytes(), cudaMemcpyHostToDevice, stream));
    }
    const double us = host_us_since(start) / kCalls;
    stream.synchronize();
    return us;
  });
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  const DeviceInfo device = query_device(ctx.device);
  const TrainingStep step(p.shape(), p.features, 1, p.layer_kernel());
  const StepStreams streams(p.streams);
  Measurements m;
  m.elements = step.elements();
  m.inputs = in_phase("model inputs", [&] { return measure_model_inputs(step, device, ctx.reps); });
  m.runs = in_phase("methods", [&] { return run_methods({StepMethod::synchronous, StepMethod::multi_stream, StepMethod::graph_serial,
                        StepMethod::graph_fork_join},
                       step, streams, p.steps, ctx.reps); });
  if (p.full) m.fill = in_phase("fill case", [&] { return measure_case(fill_case(p), kFillMethods, device, ctx.reps); });
  if (ctx.tracing()) {
    const Phase phase("trace");
    trace_method(m.timelines, StepMethod::graph_fork_join, step, streams,
                 msg("fork/join graph: one launch, {batches} batches side by side", arg("batches", p.batches)));
  }
  in_phase("dag", [&] { measure_dag(m, p, step, streams); });
  in_phase("launch sweep", [&] {
    // K = 20 at kSweepReplays is the chain the model's inputs timed: not timed twice.
    static_assert(kSweepReplays == kChainReplays);
    for (int k : sweep_kernels(p)) {
      m.sweep.push_back({k, k == kChainKernels ? m.inputs.chain20 : measure_launch_cost(k, kSweepReplays, ctx.reps)});
    }
  });
  m.update = in_phase("update", [&] { return measure_update(p, step, streams, ctx.reps); });
  m.memcpy_async_call_us = in_phase("memcpy call", [&] { return measure_memcpy_async_call(ctx.reps); });
  return m;
}

}  // namespace cudalab::graph_forkjoin
