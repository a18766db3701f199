#include "step_report.hpp"

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/core/text_format.hpp"

namespace cudalab::graphs {

namespace {

const char* method_description(StepMethod m, int streams) {
  switch (m) {
    case StepMethod::synchronous:
      return "each op, then cudaStreamSynchronize";
    case StepMethod::multi_stream:
      return streams == 1 ? "async ops on 1 stream" : "async ops, batch b on stream b % S";
    case StepMethod::graph_serial:
      return "one-batch graph launched B times on one stream";
    case StepMethod::graph_fork_join:
      return "whole step as one fork/join graph, one launch";
  }
  return "";
}

}  // namespace

std::string method_key(StepMethod method) { return std::string("step.") + method_name(method); }

Metric over_multi_stream(std::string key, StepMethod method, double ratio) {
  return derived(std::move(key),
                 msg("{method} / {baseline}", arg("method", method_name(method)),
                     arg("baseline", method_name(StepMethod::multi_stream))),
                 "x", ratio)
      .from({method_key(method), method_key(StepMethod::multi_stream)});
}

void primitives_section(ReportBuilder& b, const ModelInputs& in) {
  const auto& p = in.primitives;
  b.section("primitives", "the model's inputs, measured in this run", "model")
      .metric(derived("h2d", "H2D of one batch", "us", p.h2d_us).with_note("per copy, in a graph chain of 20"))
      .metric(derived("kernel", "one layer kernel", "us", p.kernel_us).with_note("per kernel, in a graph chain of 20"))
      .metric(derived("d2h", "D2H of one batch", "us", p.d2h_us).with_note("per copy, in a graph chain of 20"))
      .metric(measured("launch.stream", "empty kernel from a stream", "us", in.chain20.stream_per_kernel_us)
                  .with_note("per kernel, 20-kernel chain: the host's launch cost"))
      .metric(measured("launch.graph", "empty kernel inside a graph", "us", in.chain20.graph_per_kernel_us)
                  .with_note("per node, 20-node graph"));
}

void methods_section(ReportBuilder& b, const MethodRuns& runs, const std::map<StepMethod, double>& predicted,
                     const StepParams& o) {
  auto s = b.section(
      "methods",
      msg(o.streams == 1 ? "one training step: {batches} batches x (H2D + {layers} layers + D2H), {streams} stream"
                         : "one training step: {batches} batches x (H2D + {layers} layers + D2H), {streams} streams",
          arg("batches", o.batches), arg("layers", o.layers), arg("streams", o.streams)));
  std::vector<std::vector<Cell>> rows;
  for (const auto& [method, run] : runs) {
    const double model = predicted.at(method);
    s.metric(measured(method_key(method), method_name(method), "us", run.per_step_us)
                 .with_prediction(model)
                 .with_note(method_description(method, o.streams)));
    rows.push_back({text_cell(method_name(method)), text_cell(method_description(method, o.streams)),
                    metric_cell(method_key(method)), data_cell(fmt::format("{:.1f} us", model))});
  }
  s.table("methods", {"method", "how", "measured per step", "model"}, rows);
}

void method_verify_checks(ReportBuilder& b, const MethodRuns& runs, std::size_t elements, const std::string& prefix,
                          const Message& case_name) {
  for (const auto& [method, run] : runs) {
    b.verify(prefix + method_name(method), run.correct, elements,
             case_name.empty() ? msg("{method}, every batch", arg("method", method_name(method)))
                               : msg("{case}, {method}, every batch", arg("case", case_name),
                                     arg("method", method_name(method))),
             "a wrong element means a missing dependency (a batch read before its copy landed) or a graph that ran "
             "on the wrong buffers");
  }
}

void add_shape_facts(SectionBuilder& s, const std::string& prefix, const Message& label, const DagShape& shape) {
  s.fact(prefix + ".nodes", msg("{graph}: nodes", arg("graph", label)), verbatim(std::to_string(shape.nodes)))
      .fact(prefix + ".edges", msg("{graph}: edges", arg("graph", label)), verbatim(std::to_string(shape.edges)))
      .fact(prefix + ".width", msg("{graph}: width", arg("graph", label)), verbatim(std::to_string(shape.width)),
            "most nodes that can run at once (largest antichain, exact)")
      .fact(prefix + ".widest_level", msg("{graph}: widest level", arg("graph", label)),
            verbatim(std::to_string(shape.widest_level)), "most nodes at one depth: a lower bound on width")
      .fact(prefix + ".critical_path", msg("{graph}: critical path", arg("graph", label)),
            verbatim(std::to_string(shape.critical_path)), "nodes on the longest dependency chain");
}

double measured_ratio(const MethodRuns& runs, StepMethod over, StepMethod under) {
  return median_of(runs.at(over).per_step_us) / median_of(runs.at(under).per_step_us);
}

double model_ratio(const std::map<StepMethod, double>& model, StepMethod over, StepMethod under) {
  return model.at(over) / model.at(under);
}

Message footprint_text(const KernelFootprint& f) {
  return msg("{blocks} blocks of {threads} threads; the GPU holds {resident} at once", arg("blocks", f.blocks),
             arg("threads", f.threads_per_block), arg("resident", f.resident_blocks));
}

std::string fill_key(StepMethod method) { return "fill." + method_key(method); }

namespace {

// The teaching claim on streams: with filling kernels only copy overlap is left for them to buy.
void fill_stream_checks(ReportBuilder& b, const CaseResult& small, const CaseResult& fill) {
  const auto& p = small.measured.params;
  if (p.layer_kernel() != LayerKernel::small || p.streams < 2 || p.batches < 2) return;
  const double small_gain = measured_ratio(small.measured.runs, StepMethod::graph_serial, StepMethod::multi_stream) - 1;
  const double fill_gain = measured_ratio(fill.measured.runs, StepMethod::graph_serial, StepMethod::multi_stream) - 1;
  b.expect("fill.streams_buy_less", fill_gain < kFillGainShare * small_gain,
           msg("with filling kernels {streams} streams buy {fill_gain}% over one stream, against {small_gain}% with "
               "small kernels: only copies and the kernels' edges (start, tail, launch latency) overlap",
               arg("streams", p.streams), arg("fill_gain", fmt::format("{:+.0f}", 100 * fill_gain)),
               arg("small_gain", fmt::format("{:+.0f}", 100 * small_gain))),
           "needs small kernels that leave most SMs free (a GPU with few SMs fills with one small kernel too) and "
           "copies far shorter than a batch's kernels")
      .depends_on({fill_key(StepMethod::graph_serial), fill_key(StepMethod::multi_stream)});
  const double small_model = model_ratio(small.model, StepMethod::graph_serial, StepMethod::multi_stream) - 1;
  const double fill_model = model_ratio(fill.model, StepMethod::graph_serial, StepMethod::multi_stream) - 1;
  b.expect("fill.model_agrees", fill_model < kFillGainShare * small_model,
           msg("the engine model, told that a filling kernel runs alone (1 kernel at a time), predicts the same "
               "collapse: {fill_gain}% against {small_gain}%",
               arg("fill_gain", fmt::format("{:+.0f}", 100 * fill_model)),
               arg("small_gain", fmt::format("{:+.0f}", 100 * small_model))),
           "the model sees only op durations, launch costs and engines; copies as long as the kernels would leave "
           "streams something to overlap");
}

}  // namespace

SectionBuilder fill_section(ReportBuilder& b, const CaseResult& small, const CaseResult& fill) {
  const StepCase& f = fill.measured;
  const int launches = f.params.batches * ops_per_batch(f.params.shape());
  const double launching = launches * f.inputs.primitives.stream_launch_us;
  const double saving = median_of(f.runs.at(StepMethod::multi_stream).per_step_us) -
                        median_of(f.runs.at(StepMethod::graph_fork_join).per_step_us);
  auto s = b.section("fill", "filling kernels: what streams and graphs still buy", "fill");
  for (const auto& [method, run] : f.runs) {
    s.metric(measured(fill_key(method), msg("fill: {method}", arg("method", method_name(method))), "us", run.per_step_us)
                 .with_prediction(fill.model.at(method))
                 .with_note(method_description(method, f.params.streams)));
  }
  if (small.measured.params.kernel != f.params.kernel) {
    s.fact("footprint." + small.measured.params.kernel,
           small.measured.params.layer_kernel() == LayerKernel::fill ? "fill layer kernel" : "small layer kernel",
           footprint_text(small.measured.inputs.footprint), {}, false);
  }
  s.fact("footprint.fill", "fill layer kernel", footprint_text(f.inputs.footprint),
         "split over its inputs: every block of a tile adds its share of the sums", false)
      .metric(derived("fill.launching", "fill: host launching per multi-stream step", "us", launching)
                  .with_note(msg("{launches} launches x {launch_us} us", arg("launches", launches),
                                 arg("launch_us", format_number(f.inputs.primitives.stream_launch_us)))))
      .metric(derived("fill.graph_saving", "fill: multi-stream - graph-forkjoin", "us", saving)
                  .with_prediction(fill.model.at(StepMethod::multi_stream) - fill.model.at(StepMethod::graph_fork_join))
                  .with_note("what the graph buys per step")
                  .from({fill_key(StepMethod::multi_stream), fill_key(StepMethod::graph_fork_join)}));
  b.expect("fill.fills_gpu", f.inputs.footprint.blocks >= f.inputs.footprint.resident_blocks,
           msg("a filling layer kernel takes every slot of the GPU: {footprint}",
               arg("footprint", footprint_text(f.inputs.footprint))),
           "a layer of few features has too few outputs and inputs to split into that many blocks");
  fill_stream_checks(b, small, fill);
  b.expect("fill.graph_saves_only_launching", saving <= launching,
           msg("with filling kernels the fork/join graph saves {saving} us per step, no more than the {launching} us "
               "the host spends launching it as multi-stream code",
               arg("saving", format_number(saving)), arg("launching", format_number(launching))),
           "the graph runs the same DAG as multi-stream code; saving more would mean it bought concurrency the "
           "streams did not have")
      .depends_on({fill_key(StepMethod::multi_stream), fill_key(StepMethod::graph_fork_join)});
  method_verify_checks(b, f.runs, f.elements, "fill.results.", "fill case");
  return s;
}

}  // namespace cudalab::graphs
