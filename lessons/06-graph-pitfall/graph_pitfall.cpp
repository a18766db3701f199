// Lesson 06: CUDA Graphs done wrong. One batch captured on one stream and its graph launched in
// a loop runs every batch one after another, so it loses to plain multi-stream code even though
// each graph node is cheaper to launch. The engine model predicts it from primitives measured in
// the same run; --show-errors makes the classic capture mistakes and names their errors.
#include <fmt/format.h>

#include "capture_mistakes.hpp"
#include "common/cuda/device.hpp"
#include "common/bench/lesson.hpp"
#include "common/cuda/smoke_kernel.hpp"
#include "lessons/shared/training-step/step_report.hpp"
#include "common/report/text_format.hpp"

namespace cudalab {

namespace {

using namespace graphs;

constexpr std::size_t kProbeElements = 1 << 16;

class GraphPitfall final : public Lesson {
 public:
  void add_options(CLI::App& app) override {
    add_step_options(app, options_);
    app.add_flag("--show-errors", show_errors_,
                 "make the classic capture mistakes on purpose and show the error each one returns");
  }
  Repetitions default_repetitions() const override { return {2, 10}; }

  Report run(const RunContext& ctx) override {
    const DeviceInfo device = query_device(ctx.device);
    Report r;
    add_step_params(r, options_);
    r.params.push_back({"show-errors", show_errors_ ? "yes" : "no", true});

    TrainingStep step(options_.shape, options_.features, 1);
    StepStreams streams(options_.shape.streams);
    const MethodComparison comparison =
        compare_methods(r, device, step, streams, options_, {StepMethod::synchronous, StepMethod::multi_stream, StepMethod::graph_serial}, ctx.reps);
    const std::vector<MethodResult>& results = comparison.results;

    // The serial graph: one batch's chain, nothing side by side.
    Section shape;
    shape.key = "graph";
    shape.title = "the captured graph of one batch";
    shape.notes_key = "pitfall";
    {
      Stream s;
      const Graph one_batch = [&] {
        CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        step.enqueue_batch(0, s);
        cudaGraph_t g = nullptr;
        CUDALAB_CUDA_CHECK(cudaStreamEndCapture(s, &g));
        return Graph(g);
      }();
      add_shape_facts(shape, "serial", "one-batch graph", shape_of(one_batch.get()));
    }
    shape.facts.push_back({"launches_per_step", "graph launches per step", std::to_string(options_.shape.batches),
                           "all on one stream: each waits for the previous one", true});
    r.sections.push_back(std::move(shape));

    const double multi = median_of(results[1].run.per_step_us);
    const double serial = median_of(results[2].run.per_step_us);
    const double measured_ratio = serial / multi;
    const double predicted_ratio = results[2].predicted_us / results[1].predicted_us;
    Section verdict;
    verdict.key = "verdict";
    verdict.title = "graph-serial vs multi-stream";
    verdict.metrics.push_back(single_value("serial_over_multi", "graph-serial / multi-stream", "x", measured_ratio,
                                           "above 1: the graph loses"));
    verdict.metrics.back().predicted = predicted_ratio;
    r.sections.push_back(std::move(verdict));
    if (options_.shape.streams >= 2 && options_.shape.batches >= 2) {
      r.checks.push_back(expect_check(
          "graph_serial_slower", measured_ratio > 1.0,
          "graph-serial is slower than multi-stream: the graph kept only one batch's parallelism",
          "it can win when kernels are so short that launch cost dominates everything, or when the device runs "
          "only one kernel at a time"));
    }
    r.checks.push_back(expect_check(
        "model_agrees", (measured_ratio > 1.0) == (predicted_ratio > 1.0),
        "the engine model picks the same winner between graph-serial and multi-stream as the measurement",
        "the model knows only launch costs, op durations, copy engines and stream order; clock changes or a busy "
        "GPU can tip a close race"));

    if (ctx.tracing()) {
      trace_method(r, StepMethod::multi_stream, step, streams, options_, comparison.inputs.primitives,
                   fmt::format("multi-stream: {} batches over {} streams, side by side", options_.shape.batches,
                               options_.shape.streams));
      trace_method(r, StepMethod::graph_serial, step, streams, options_, comparison.inputs.primitives,
                   fmt::format("graph-serial: {} one-batch graphs, one after another", options_.shape.batches));
    }

    if (show_errors_) add_mistakes(r);

    r.headline = fmt::format("graph-serial {:.2f}x the multi-stream time (model {:.2f}x)", measured_ratio, predicted_ratio);
    r.try_next = {
        {"cudalab graph-pitfall --show-errors", "the capture mistakes and the errors they return"},
        {"cudalab graph-pitfall --streams 1", "with one stream there is no parallelism to lose"},
        {"cudalab graph-pitfall --layers 30", "more launches per batch: who gains?"},
        {"cudalab graph-forkjoin", "the right way: capture the parallelism with fork/join"},
    };
    return r;
  }

 private:
  void add_mistakes(Report& r) const {
    Section s;
    s.key = "mistakes";
    s.title = "capture mistakes, made on purpose";
    s.notes_key = "mistakes";
    Table t;
    t.key = "mistakes";
    t.columns = {"mistake", "reported by", "error"};
    for (const auto& m : make_capture_mistakes()) {
      t.rows.push_back({Cell{m.mistake, ""}, Cell{m.call, ""}, Cell{m.error_name, ""}});
      s.facts.push_back({m.key, m.mistake, m.error_name, m.meaning, true});
      r.checks.push_back(expect_check("mistake." + m.key, m.error_name == m.expected,
                                      fmt::format("{}: {}", m.call, m.error_name),
                                      fmt::format("CUDA documents {} for this; another driver may report it differently",
                                                  m.expected)));
    }
    s.tables.push_back(std::move(t));
    r.sections.push_back(std::move(s));
    // The process must still be usable: no sticky error, no stream left capturing.
    CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t correct = run_smoke_kernel(kProbeElements);
    r.checks.push_back(verify_check("device_healthy_after_mistakes", correct == kProbeElements,
                                    fmt::format("the device still runs kernels after the mistakes ({} of {} elements)",
                                                format_count(correct), format_count(kProbeElements)),
                                    "a mistake left an error or a capture behind"));
  }

  StepOptions options_;
  bool show_errors_ = false;
};

}  // namespace

std::unique_ptr<Lesson> make_graph_pitfall() { return std::make_unique<GraphPitfall>(); }

}  // namespace cudalab
