#include "report.hpp"

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "common/report/named_figures.hpp"
#include "lessons/shared/training-step/step_report.hpp"

namespace cudalab::graph_forkjoin {

namespace {

using graphs::StepMethod;

bool same_shape(const DagShape& a, const DagShape& b) {
  return a.nodes == b.nodes && a.edges == b.edges && a.width == b.width && a.critical_path == b.critical_path &&
         a.roots == b.roots && a.leaves == b.leaves;
}

double step_us(const Measurements& m, StepMethod method) { return median_of(m.runs.at(method).per_step_us); }

void dag_section(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  auto s = b.section("dag", "the step as a DAG: fork/join capture vs built node by node", "forkjoin");
  graphs::add_shape_facts(s, "captured", "fork/join capture", m.captured);
  graphs::add_shape_facts(s, "explicit", "explicit API", m.built);
  const DagShape& e = predicted.expected;
  s.fact("expected", "expected",
         msg("{nodes} nodes, {edges} edges, width {width}, critical path {critical_path}", arg("nodes", e.nodes),
             arg("edges", e.edges), arg("width", e.width), arg("critical_path", e.critical_path)),
         "min(B,S) chains of ceil(B/S) batches x (L+2) nodes");
  if (!p.dot.empty()) s.fact("dot", "Graphviz file", verbatim(p.dot), "cudaGraphDebugDotPrint of the fork/join capture");
  b.verify("dag.same_shape", same_shape(m.captured, m.built),
           "the explicitly built graph has the same shape as the fork/join capture",
           "the explicit builder must add the same nodes and dependencies the capture records");
  b.expect("dag.expected_shape", same_shape(m.captured, e), "the capture has min(B,S) independent chains, as fork/join should give",
           "a different shape means the capture recorded extra nodes or dependencies");
  b.verify("results.explicit-graph", m.explicit_correct, m.elements, "explicit-API graph, every batch",
           "a missing dependency in the explicit graph");
}

void verdict_section(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  const double multi = step_us(m, StepMethod::multi_stream);
  const double serial = step_us(m, StepMethod::graph_serial);
  const double forkjoin = step_us(m, StepMethod::graph_fork_join);
  const auto& model = predicted.step_us;
  b.section("verdict", "graphs vs multi-stream", "")
      .metric(graphs::over_multi_stream("forkjoin_over_multi", StepMethod::graph_fork_join, forkjoin / multi)
                  .with_prediction(model.at(StepMethod::graph_fork_join) / model.at(StepMethod::multi_stream))
                  .with_note("at most 1: the parallel graph keeps up or wins"))
      .metric(graphs::over_multi_stream("serial_over_multi", StepMethod::graph_serial, serial / multi)
                  .with_prediction(model.at(StepMethod::graph_serial) / model.at(StepMethod::multi_stream))
                  .with_note("above 1: the serial graph loses (lesson 06)"));
  b.expect("forkjoin_not_slower", forkjoin <= multi, "graph-forkjoin is at least as fast as multi-stream",
           "when each kernel is long, launch cost hides behind the work and both tie; noise may then tip it either way")
      .depends_on({graphs::method_key(StepMethod::graph_fork_join), graphs::method_key(StepMethod::multi_stream)})
      .headline_check("forkjoin_not_slower");
  b.headline(msg("forkjoin {forkjoin}x, serial {serial}x the multi-stream time",
                 arg("forkjoin", fmt::format("{:.2f}", forkjoin / multi)),
                 arg("serial", fmt::format("{:.2f}", serial / multi))),
             {"forkjoin_over_multi", "serial_over_multi"});
}

// A ratio of two methods' step times in the fill case, computed from its fill.step.* metrics.
Metric fill_ratio(const std::string& key, StepMethod over, const graphs::StepCase& fill, const Prediction& predicted) {
  return derived(key,
                 msg("fill: {method} / {baseline}", arg("method", graphs::method_name(over)),
                     arg("baseline", graphs::method_name(StepMethod::multi_stream))),
                 "x", graphs::measured_ratio(fill.runs, over, StepMethod::multi_stream))
      .with_prediction(graphs::model_ratio(predicted.fill_step_us, over, StepMethod::multi_stream))
      .from({graphs::fill_key(over), graphs::fill_key(StepMethod::multi_stream)});
}

// With --full, the step at the flags given beside the same step with GPU-filling kernels: what S
// streams buy (graph-serial / multi-stream) and what the graph buys (graph-forkjoin / multi-stream)
// in each.
void fill_comparison(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  if (!m.fill) return;
  const graphs::StepCase main{p, m.elements, m.inputs, m.runs};
  const graphs::StepCase& fill = *m.fill;
  auto s = graphs::fill_section(b, {main, predicted.step_us}, {fill, predicted.fill_step_us});
  s.metric(fill_ratio("fill.serial_over_multi", StepMethod::graph_serial, fill, predicted))
      .metric(fill_ratio("fill.forkjoin_over_multi", StepMethod::graph_fork_join, fill, predicted));
  std::vector<std::vector<Cell>> rows;
  for (const auto& [c, prefix] : {std::pair{&main, ""}, std::pair{&fill, "fill."}}) {
    std::vector<Cell> row{text_cell(c->params.layer_kernel() == graphs::LayerKernel::fill ? "filling" : "small")};
    for (const StepMethod method : graphs::kFillMethods) {
      row.push_back(data_cell(format_number(median_of(c->runs.at(method).per_step_us)) + " us"));
    }
    row.push_back(metric_cell(std::string(prefix) + "serial_over_multi"));
    row.push_back(metric_cell(std::string(prefix) + "forkjoin_over_multi"));
    rows.push_back(std::move(row));
  }
  // Short headers: six columns must fit 80 columns without breaking a method's name.
  s.table("fill", {"kernels", "multi-stream", "graph-serial", "forkjoin", "serial/multi", "forkjoin/multi"}, rows);
}

void sweep_section(ReportBuilder& b, const Measurements& m) {
  auto s = b.section("launch", msg("launch cost: K empty kernels, stream vs graph ({replays} replays per sample)",
                                   arg("replays", kSweepReplays)));
  std::vector<std::vector<Cell>> rows;
  Plot plot{"launch_sweep", "launch cost per kernel: from a stream vs inside a graph", "kernels per chain (K)", "",
            "cost per kernel", "us", true, false, {{"stream", {}, false}, {"graph", {}, false}}};
  for (const auto& point : m.sweep) {
    const auto& c = point.cost;
    const std::string prefix = fmt::format("k{}", point.kernels);
    const double stream = median_of(c.stream_per_kernel_us), graph = median_of(c.graph_per_kernel_us);
    const auto payback = payback_replays(stream, graph, point.kernels, median_of(c.capture_instantiate_us));
    const MessageArg k = arg("kernels", point.kernels);
    s.metric(measured(prefix + ".stream", msg("K={kernels} stream, per kernel", k), "us", c.stream_per_kernel_us))
        .metric(measured(prefix + ".graph", msg("K={kernels} graph, per kernel", k), "us", c.graph_per_kernel_us))
        .metric(measured(prefix + ".build", msg("K={kernels} capture+instantiate", k), "us", c.capture_instantiate_us))
        .metric(derived(prefix + ".ratio", msg("K={kernels} stream / graph", k), "x", stream / graph));
    rows.push_back({data_cell(std::to_string(point.kernels)), metric_cell(prefix + ".stream"), metric_cell(prefix + ".graph"),
                    metric_cell(prefix + ".ratio"), metric_cell(prefix + ".build"),
                    text_cell(payback ? msg("{replays} replays", arg("replays", fmt::format("{:.0f}", *payback)))
                                      : Message("never"))});
    plot.series[0].points.push_back({static_cast<double>(point.kernels), prefix + ".stream", 0});
    plot.series[1].points.push_back({static_cast<double>(point.kernels), prefix + ".graph", 0});
    if (point.kernels == graphs::kChainKernels) {
      b.expect("launch.graph_per_kernel_cheaper", stream / graph >= kGraphLaunchAdvantage,
               "a 20-kernel graph costs at most a third per kernel of launching from a stream",
               "a fast host CPU shrinks the stream's launch cost; older GPUs and drivers have a larger per-node cost "
               "inside graphs");
    }
  }
  s.table("launch", {"K", "stream per kernel", "graph per kernel", "stream / graph", "capture+instantiate",
                     "pays back after"},
          rows);
  // A line needs two chain lengths: without --full the table has the one row.
  if (m.sweep.size() >= 2) s.get().plots.push_back(std::move(plot));
}

void update_section(ReportBuilder& b, const Measurements& m) {
  const auto& u = m.update;
  b.section("update", "new buffers, same graph: update vs re-instantiate (host time)")
      .metric(measured("set_params", "cudaGraphExec*NodeSetParams on every node", "us", u.set_params_us)
                  .with_note("no capture"))
      .metric(measured("exec_update", "capture again + cudaGraphExecUpdate", "us", u.exec_update_us))
      .metric(measured("reinstantiate", "capture again + cudaGraphInstantiate", "us", u.reinstantiate_us));
  for (const auto& [key, what, correct] :
       {std::tuple{"set_params", "after SetParams, the new buffers' results", u.set_params_correct},
        std::tuple{"exec_update", "after cudaGraphExecUpdate, the new buffers' results", u.exec_update_correct},
        std::tuple{"reinstantiate", "after re-instantiation, the new buffers' results", u.reinstantiate_correct}}) {
    b.verify(fmt::format("results.update.{}", key), correct, m.elements, what,
             "the updated graph still pointed at the old buffers");
  }
  b.expect("update.cheaper_than_reinstantiate",
           median_of(u.exec_update_us) < median_of(u.reinstantiate_us) &&
               median_of(u.set_params_us) < median_of(u.reinstantiate_us),
           "updating an instantiated graph is cheaper than instantiating it again",
           "instantiation cost grows with the node count; a tiny graph may instantiate about as fast as it updates");
}

// Lecture 000's figures and lecture 004's explicit-graph example, next to this run.
void lecture_section(ReportBuilder& b, const Measurements& m) {
  const double launch = median_of(m.inputs.chain20.stream_per_kernel_us);
  const double node = median_of(m.inputs.chain20.graph_per_kernel_us);
  b.section("lecture", "lecture vs lab: what graphs save")
      .metric(derived("lecture.launch_ratio",
                      msg("lecture 000: {saving} less launch cost; here, 20 kernels",
                          arg("saving", named_figure_text("lecture000.launch_saving"))),
                      "x", launch / node))
      .metric(derived("lecture.step_speedup",
                      msg("lecture 000: {speedup} faster overall; here, multi-stream / fork-join",
                          arg("speedup", named_figure_text("lecture000.overall"))),
                      "x",
                      step_us(m, StepMethod::multi_stream) / step_us(m, StepMethod::graph_fork_join)))
      .metric(derived("lecture.kernel_launch",
                      msg("lecture 000: ~{launch} per kernel launch; here",
                          arg("launch", named_figure_text("lecture000.kernel_launch"))),
                      "us", launch))
      .metric(measured("lecture.memcpy_async_call",
                       msg("lecture 000: ~{call} per cudaMemcpyAsync; here, host time",
                           arg("call", named_figure_text("lecture000.memcpy_async"))),
                       "us",
                       m.memcpy_async_call_us))
      .fact("lecture.launch_graph", "lecture 004: cudaGraphLaunch(graph, stream)",
            verbatim("cudaGraphInstantiate(&exec, graph, 0); cudaGraphLaunch(exec, stream)"),
            "cudaGraphLaunch takes only an instantiated cudaGraphExec_t: a cudaGraph_t is another type and "
            "never compiled there")
      .fact("lecture.kernel_params", "lecture 004: kernelParams = (void**)&d_data",
            verbatim("void* args[] = {&d_data}; kernelParams = args"),
            "kernelParams is an array with one pointer per kernel argument, each pointing at that argument");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  graphs::primitives_section(b, m.inputs);
  graphs::methods_section(b, m.runs, predicted.step_us, p);
  graphs::method_verify_checks(b, m.runs, m.elements);
  dag_section(b, p, m, predicted);
  verdict_section(b, m, predicted);
  fill_comparison(b, p, m, predicted);
  sweep_section(b, m);
  update_section(b, m);
  lecture_section(b, m);
  b.try_next("cudalab graph-forkjoin --dot step.dot", "then: dot -Tsvg step.dot > step.svg, and look at the DAG")
      .try_next("cudalab graph-forkjoin --streams 1", "one stream: the fork/join graph is a chain again")
      .try_next("cudalab graph-forkjoin --layers 1 --features 64", "almost no work: launch cost is everything")
      .try_next("cudalab graph-forkjoin --streams 64 --batches 64", "as wide as the DAG can get")
      .try_next("cudalab graph-forkjoin --kernel fill", "every kernel fills the GPU: what is left for the graph to win?");
  if (!p.full) b.try_next("cudalab graph-forkjoin --full", "also the fill case, and the launch cost at every chain length");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::graph_forkjoin
