#include "step_report.hpp"

#include <fmt/format.h>

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
                 std::string(method_name(method)) + " / " + method_name(StepMethod::multi_stream), "x", ratio)
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
  auto s = b.section("methods",
                     fmt::format("one training step: {} batches x (H2D + {} layers + D2H), {} stream{}", o.batches,
                                 o.layers, o.streams, o.streams == 1 ? "" : "s"));
  std::vector<std::vector<Cell>> rows;
  for (const auto& [method, run] : runs) {
    const double model = predicted.at(method);
    s.metric(measured(method_key(method), method_name(method), "us", run.per_step_us)
                 .with_prediction(model)
                 .with_note(method_description(method, o.streams)));
    rows.push_back({text_cell(method_name(method)), text_cell(method_description(method, o.streams)),
                    metric_cell(method_key(method)), text_cell(fmt::format("{:.1f} us", model))});
  }
  s.table("methods", {"method", "how", "measured per step", "model"}, rows);
}

void method_verify_checks(ReportBuilder& b, const MethodRuns& runs, std::size_t elements, const std::string& prefix,
                          const std::string& label_prefix) {
  for (const auto& [method, run] : runs) {
    b.verify(prefix + method_name(method), run.correct, elements,
             fmt::format("{}{}, every batch", label_prefix, method_name(method)),
             "a wrong element means a missing dependency (a batch read before its copy landed) or a graph that ran "
             "on the wrong buffers");
  }
}

void add_shape_facts(SectionBuilder& s, const std::string& prefix, const std::string& label, const DagShape& shape) {
  s.fact(prefix + ".nodes", label + ": nodes", std::to_string(shape.nodes))
      .fact(prefix + ".edges", label + ": edges", std::to_string(shape.edges))
      .fact(prefix + ".width", label + ": width", std::to_string(shape.width),
            "most nodes that can run at once (largest antichain, exact)")
      .fact(prefix + ".widest_level", label + ": widest level", std::to_string(shape.widest_level),
            "most nodes at one depth: a lower bound on width")
      .fact(prefix + ".critical_path", label + ": critical path", std::to_string(shape.critical_path),
            "nodes on the longest dependency chain");
}

}  // namespace cudalab::graphs
