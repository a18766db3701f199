#include "measure.hpp"

#include "lessons/shared/training-step/step_measure.hpp"

#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/smoke_kernel.hpp"
#include "common/gpu/streams.hpp"

namespace cudalab::graph_pitfall {

namespace {

using namespace graphs;

void trace(Measurements& m, const Params& p, const TrainingStep& step, const StepStreams& streams) {
  trace_method(m.timelines, StepMethod::multi_stream, step, streams,
               msg("multi-stream: {batches} batches over {streams} streams, side by side", arg("batches", p.batches),
                   arg("streams", p.streams)));
  trace_method(m.timelines, StepMethod::graph_serial, step, streams,
               msg("graph-serial: {batches} one-batch graphs, one after another", arg("batches", p.batches)));
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  const DeviceInfo device = query_device(ctx.device);
  Measurements m;
  // One step for the main case, the one-batch graph and the trace: each TrainingStep computes
  // (or looks up) its CPU reference and fills its buffers.
  const TrainingStep step = in_phase("step setup", [&] { return TrainingStep(p.shape(), p.features, 1, p.layer_kernel()); });
  const StepStreams streams(p.streams);
  m.main = in_phase("main case", [&] { return measure_case(p, step, streams, kMethods, device, ctx.reps); });
  m.launch_bound = in_phase("launch-bound case", [&] { return measure_case(launch_bound_case(p), kLaunchBoundMethods, device, ctx.reps); });
  if (p.full) m.fill = in_phase("fill case", [&] { return measure_case(fill_case(p), kFillMethods, device, ctx.reps); });
  {
    const Phase phase("one-batch shape");
    const Graph one_batch = capture(streams.origin(), [&](cudaStream_t s) { step.enqueue_batch(0, s); });
    m.one_batch = shape_of(one_batch.get());
  }
  if (ctx.tracing()) in_phase("trace", [&] { trace(m, p, step, streams); });
  if (p.show_errors) {
    const Phase phase("capture mistakes");
    m.mistakes = make_capture_mistakes();
    // The process must still be usable: no sticky error, no stream left capturing.
    CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
    m.healthy_after_mistakes = run_smoke_kernel(kProbeElements);
  }
  return m;
}

}  // namespace cudalab::graph_pitfall
