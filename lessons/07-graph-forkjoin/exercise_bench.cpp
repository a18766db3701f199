#include "exercise_bench.hpp"

#include <fmt/format.h>

#include "common/exercise/student_library.hpp"
#include "common/exercise/student_run.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/traced_run.hpp"
#include "exercise/graph_forkjoin_capture_v1.h"
#include "exercise_report.hpp"
#include "lessons/shared/training-step/step_measure.hpp"
#include "lessons/shared/training-step/step_model.hpp"

namespace cudalab::graph_forkjoin {

namespace {

using namespace graphs;

const TrainingStep* g_step = nullptr;
void enqueue_for_student(int batch, cudaStream_t stream) {
  if (g_step != nullptr && batch >= 0 && batch < g_step->shape().batches) g_step->enqueue_batch(batch, stream);
}

StepParams step_of(const CaptureRequest& q) {
  StepParams p;
  p.batches = q.batches;
  p.layers = q.layers;
  p.streams = q.streams;
  p.features = q.features;
  p.steps = q.steps;
  p.kernel = q.kernel;
  return p;
}

// What cudaStreamEndCapture's error means for the student's capture.
Message end_capture_verdict(cudaError_t e) {
  const std::string name = cudaGetErrorName(e);
  if (e == cudaErrorStreamCaptureUnjoined) {
    return msg("your capture() left a stream unjoined ({error} from cudaStreamEndCapture): record an event on each "
               "stream you forked into the capture and make lab.origin wait on it before the capture ends",
               arg("error", name));
  }
  if (e == cudaErrorStreamCaptureInvalidated) {
    return msg("your capture was invalidated ({error}): a call that is not allowed while capturing (a synchronize, "
               "a query) ended it",
               arg("error", name));
  }
  return msg("cudaStreamEndCapture failed after your capture(): {error}", arg("error", name));
}

// Begins the capture, lets the student fill it, ends it: the graph, or the verdict why not.
Graph capture_students_graph(const cudalab_exercise::CaptureLab& lab, const cudalab_exercise::CaptureHooks& hooks) {
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(lab.origin, cudaStreamCaptureModeGlobal));
  hooks.capture(lab);
  cudaGraph_t raw = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(lab.origin, &raw);
  Graph graph(raw);  // owned whatever happens next
  if (const auto failed = student_failure()) {
    throw StudentCudaError(
        student_failure_words(*failed, "capture()", cudaGetErrorName(static_cast<cudaError_t>(failed->error))), false);
  }
  if (ended != cudaSuccess) {
    (void)cudaGetLastError();
    throw StudentCudaError(end_capture_verdict(ended), false);
  }
  return graph;
}

// The lab's own: the whole step captured on one stream, then with the lesson's fork/join.
CaptureYardstick measure_yardstick(const Params& p, const RunContext& ctx) {
  const DeviceInfo device = query_device(ctx.device);
  const TrainingStep step(p.shape(), p.features, 1, p.layer_kernel());
  const StepStreams streams(p.streams);
  CaptureYardstick lab;
  lab.elements = step.elements();
  const ModelInputs inputs = in_phase("model inputs", [&] { return measure_model_inputs(step, device, ctx.reps); });
  StepShape one_stream = p.shape();
  one_stream.streams = 1;
  lab.model_one_stream_us = predict_step_us(StepMethod::graph_fork_join, one_stream, inputs.primitives);
  lab.model_fork_join_us = predict_step_us(StepMethod::graph_fork_join, p.shape(), inputs.primitives);
  in_phase("one-stream capture", [&] {
    const GraphExec exec(capture(streams.origin(), [&](cudaStream_t s) {
      for (int b = 0; b < p.batches; ++b) step.enqueue_batch(b, s);
    }));
    lab.one_stream = run_graph_once_per_step(step, streams, exec, p.steps, ctx.reps);
  });
  in_phase("fork/join capture", [&] {
    const GraphExec exec(capture_fork_join(step, streams));
    lab.fork_join = run_graph_once_per_step(step, streams, exec, p.steps, ctx.reps);
  });
  return lab;
}

}  // namespace

Report run_capture_exercise(const Params& p, const RunContext& ctx, const StudentBuild& build) {
  const CaptureYardstick lab = measure_yardstick(p, ctx);
  Repetitions reps = ctx.reps;
  reps.adaptive = false;
  const CaptureRequest request{p.batches, p.layers, p.streams, p.features, p.steps, p.kernel, reps};
  const StudentRun student = in_phase("your capture", [&] {
    return run_student(build, request_to_json(request).dump(), queue_name_of_device(ctx.device), "capture()");
  });
  return build_capture_report(p, lab, student, build);
}

std::string serve_capture(const std::string& request_text, const StudentLibrary& library) {
  const CaptureRequest q = request_from_json(request_text);
  const auto& hooks = library.hooks<cudalab_exercise::CaptureHooks>();
  if (hooks.capture == nullptr) throw StudentLoadError("your CUDALAB_EXERCISE_ENTRY names no function");
  use_device(0);  // the one GPU the lab let this process see
  const StepParams sp = step_of(q);
  const TrainingStep step(sp.shape(), sp.features, 1, sp.layer_kernel());
  g_step = &step;
  const StepStreams streams(q.streams);
  std::vector<Event> events;
  std::vector<cudaEvent_t> event_handles;
  for (int i = 0; i <= q.streams; ++i) events.emplace_back(cudaEventDisableTiming);
  for (const auto& e : events) event_handles.push_back(e.get());
  std::vector<cudaStream_t> workers;
  for (int s = 0; s < streams.count(); ++s) workers.push_back(streams.worker(s));
  const cudalab_exercise::CaptureLab lab{streams.origin(), workers.data(), streams.count(), event_handles.data(),
                                         static_cast<int>(event_handles.size()), q.batches, &enqueue_for_student,
                                         &note_student_failure};
  const Graph graph = capture_students_graph(lab, hooks);
  CaptureResult result;
  result.shape = shape_of(graph.get());
  result.elements = step.elements();
  const GraphExec exec(graph);
  const MethodRun run = run_graph_once_per_step(step, streams, exec, q.steps, q.reps);
  result.per_step_us = run.per_step_us;
  result.correct = run.correct;
  std::vector<Timeline> timelines;
  const auto traced = traced_run(timelines, "your graph, one replay", {{streams.origin(), "the graph's launch"}},
                                 [&](TraceSession&) { exec.launch(streams.origin()); }, "exercise_timeline");
  if (traced) result.timeline = *traced;
  g_step = nullptr;
  return result_to_json(result).dump();
}

}  // namespace cudalab::graph_forkjoin
