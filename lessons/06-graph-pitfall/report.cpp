#include "report.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "lessons/shared/training-step/step_report.hpp"

namespace cudalab::graph_pitfall {

namespace {

using graphs::StepMethod;

double median_step(const StepCase& c, StepMethod method) { return median_of(c.runs.at(method).per_step_us); }

void graph_section(ReportBuilder& b, const Params& p, const Measurements& m) {
  auto s = b.section("graph", "the captured graph of one batch", "pitfall");
  graphs::add_shape_facts(s, "serial", "one-batch graph", m.one_batch);
  s.fact("launches_per_step", "graph launches per step", verbatim(std::to_string(p.batches)),
         "all on one stream: each waits for the previous one");
}

// A graph-forkjoin / multi-stream metric of a case that ran both, keyed "case.<name>.forkjoin_over_multi".
// The case's name is words too ("launch_bound" reads 受启动限制 in Chinese).
Metric forkjoin_over_multi(const char* name, const StepCase& c, const CasePrediction& pred) {
  return derived(std::string("case.") + name + ".forkjoin_over_multi",
                 msg("{case}: graph-forkjoin / multi-stream", arg("case", name)), "x",
                 graphs::measured_ratio(c.runs, StepMethod::graph_fork_join, StepMethod::multi_stream))
      .with_prediction(graphs::model_ratio(pred.step_us, StepMethod::graph_fork_join, StepMethod::multi_stream));
}

// Where a step's time goes, in the default case, a launch-bound one and (with --full) one whose
// every kernel fills the GPU, side by side.
void bound_section(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  auto s = b.section("bound", "when graphs pay: a GPU-bound step and a launch-bound one", "bound");
  std::vector<std::tuple<const char*, const StepCase*, const CasePrediction*>> cases = {
      {"default", &m.main, &predicted.main}, {"launch_bound", &m.launch_bound, &predicted.launch_bound}};
  if (m.fill && predicted.fill) cases.emplace_back("fill", &*m.fill, &*predicted.fill);
  std::vector<std::vector<Cell>> rows;
  for (const auto& [name, c, pred] : cases) {
    const std::string key = std::string("case.") + name;
    const double multi = median_step(*c, StepMethod::multi_stream);
    const double serial = median_step(*c, StepMethod::graph_serial);
    s.metric(derived(key + ".launch_share", msg("{case}: host launching / multi-stream step", arg("case", name)), "%",
                     100.0 * pred->launch_us_per_step / multi)
                 .with_note(msg("{launches} launches x {launch_us} us", arg("launches", pred->launches_per_step),
                                arg("launch_us", format_number(c->inputs.primitives.stream_launch_us)))))
        .metric(derived(key + ".serial_over_multi", msg("{case}: graph-serial / multi-stream", arg("case", name)), "x",
                        serial / multi)
                    .with_prediction(pred->serial_over_multi));
    rows.push_back({text_cell(msg("{case} ({layers} layers x {features} features)", arg("case", name),
                                  arg("layers", c->params.layers), arg("features", c->params.features))),
                    data_cell(format_number(multi) + " us"), data_cell(format_number(serial) + " us"),
                    metric_cell(key + ".serial_over_multi"), metric_cell(key + ".launch_share")});
  }
  s.metric(forkjoin_over_multi("launch_bound", m.launch_bound, predicted.launch_bound));
  if (m.fill && predicted.fill) s.metric(forkjoin_over_multi("fill", *m.fill, *predicted.fill));
  s.table("bound", {"case", "multi-stream", "graph-serial", "serial / multi", "launching %"}, rows);
}

void verdict_checks(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  const double ratio = median_step(m.main, StepMethod::graph_serial) / median_step(m.main, StepMethod::multi_stream);
  b.section("verdict", "graph-serial vs multi-stream", "")
      .metric(graphs::over_multi_stream("serial_over_multi", StepMethod::graph_serial, ratio)
                  .with_prediction(predicted.main.serial_over_multi)
                  .with_note("above 1: the graph loses"));
  if (p.streams >= 2 && p.batches >= 2) {
    b.expect("graph_serial_slower", ratio > 1.0,
             "graph-serial is slower than multi-stream: the graph kept only one batch's parallelism",
             "it can win when kernels are so short that launch cost dominates everything, or when the device runs "
             "only one kernel at a time")
        .headline_check("graph_serial_slower");
  }
  b.expect("model_agrees", (ratio > 1.0) == (predicted.main.serial_over_multi > 1.0),
           "the engine model picks the same winner between graph-serial and multi-stream as the measurement",
           "the model knows only launch costs, op durations, copy engines and stream order; clock changes or a busy "
           "GPU can tip a close race");
  const auto& lb = m.launch_bound;
  const double lb_multi = median_step(lb, StepMethod::multi_stream);
  const double best_graph = std::min(median_step(lb, StepMethod::graph_serial), median_step(lb, StepMethod::graph_fork_join));
  b.expect("launch_bound_graph_wins", best_graph < lb_multi,
           msg("with one small layer per batch the host's launches set the pace, and a graph wins ({graph_us} vs "
               "{multi_us} us)",
               arg("graph_us", format_number(best_graph)), arg("multi_us", format_number(lb_multi))),
           "needs a launch cost per op above the op's own GPU time; a very fast host CPU narrows the gap");
  b.expect("default_is_gpu_bound", predicted.main.launch_us_per_step < kLaunchBoundShare * median_step(m.main, StepMethod::multi_stream),
           msg("at the default shape launching takes {launch_us} us of a {step_us} us step: the step is GPU-bound",
               arg("launch_us", format_number(predicted.main.launch_us_per_step)),
               arg("step_us", format_number(median_step(m.main, StepMethod::multi_stream)))),
           "a slow host or small kernels make the default step launch-bound too");
}

// The errors some calls returned, for people: "cudaErrorInvalidValue", or two calls' errors
// "cudaErrorStreamCaptureUnsupported then cudaErrorStreamCaptureInvalidated". The names are data.
Message errors_text(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return verbatim(errors[0]);
  if (errors.size() == 2) return msg("{first} then {second}", arg("first", errors[0]), arg("second", errors[1]));
  std::vector<Message> names;
  for (const auto& e : errors) names.push_back(verbatim(e));
  return join(names, ", ");
}

void mistakes_section(ReportBuilder& b, const Measurements& m) {
  if (m.mistakes.empty()) return;
  auto s = b.section("mistakes", "capture mistakes and capture modes, made on purpose");
  std::vector<std::vector<Cell>> rows;
  for (const auto& x : m.mistakes) {
    const Message returned = errors_text(x.errors);
    rows.push_back({text_cell(x.mistake), text_cell(x.call), text_cell(returned)});
    s.fact(x.key, x.mistake, returned, x.meaning);
    b.expect("mistake." + x.key, x.errors == x.expected,
             msg("{call}: {returned}", arg("call", x.call), arg("returned", returned)),
             msg("CUDA documents {expected} for this; another driver may report it differently",
                 arg("expected", errors_text(x.expected))));
  }
  s.table("mistakes", {"mistake", "reported by", "returned"}, rows);
  const std::size_t correct = m.healthy_after_mistakes.value_or(0);
  b.verify("device_healthy_after_mistakes", correct, kProbeElements,
           "a kernel run after the mistakes (the device still works)",
           "a mistake left an error or a capture behind");
}

void lecture_section(ReportBuilder& b, const Measurements& m) {
  const auto& in = m.main.inputs;
  b.section("lecture", "lecture vs lab: graphs captured from one stream")
      .metric(derived("lecture.serial_over_multi", "lecture 000: one-stream graph slower than multi-stream", "x",
                      median_step(m.main, StepMethod::graph_serial) / median_step(m.main, StepMethod::multi_stream))
                  .with_note("confirmed when above 1"))
      .metric(derived("lecture.kernel_over_launch", "one layer kernel / its launch cost", "x",
                      in.primitives.kernel_us / in.primitives.stream_launch_us)
                  .with_note("far above 1: kernels overlap, so concurrency is what the serial graph loses"));
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  graphs::primitives_section(b, m.main.inputs);
  graphs::methods_section(b, m.main.runs, predicted.main.step_us, p);
  graphs::method_verify_checks(b, m.main.runs, m.main.elements);
  graph_section(b, p, m);
  verdict_checks(b, p, m, predicted);
  bound_section(b, m, predicted);
  graphs::method_verify_checks(b, m.launch_bound.runs, m.launch_bound.elements, "launch_bound.results.",
                               "launch-bound case");
  if (m.fill && predicted.fill) graphs::fill_section(b, {m.main, predicted.main.step_us}, {*m.fill, predicted.fill->step_us});
  mistakes_section(b, m);
  lecture_section(b, m);
  const double ratio = median_step(m.main, StepMethod::graph_serial) / median_step(m.main, StepMethod::multi_stream);
  b.headline(msg("graph-serial {ratio}x the multi-stream time (model {model}x)",
                 arg("ratio", fmt::format("{:.2f}", ratio)),
                 arg("model", fmt::format("{:.2f}", predicted.main.serial_over_multi))),
             {"serial_over_multi"});
  b.try_next("cudalab graph-pitfall --show-errors", "the capture mistakes and the errors they return")
      .try_next("cudalab graph-pitfall --streams 1", "with one stream there is no parallelism to lose")
      .try_next("cudalab graph-pitfall --layers 1 --features 64", "launch-bound: now graphs pay")
      .try_next("cudalab graph-pitfall --kernel fill", "every kernel fills the GPU: is the serial graph still a pitfall?")
      .try_next("cudalab 07", "the right way: capture the parallelism with fork/join");
  if (!m.fill) b.try_next("cudalab graph-pitfall --full", "also the fill case: the same step with GPU-filling kernels");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::graph_pitfall
