// Lesson 07: CUDA Graphs done right. The whole training step is captured with fork/join across
// S streams (and built again node by node with the explicit API), so the graph is a parallel
// DAG launched once per step. All four methods side by side with the model's predictions, the
// DAG's shape read back from CUDA, the per-kernel launch cost of a stream vs a graph, and what
// updating an instantiated graph costs compared with capturing and instantiating it again.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "common/cuda/device.hpp"
#include "common/bench/errors.hpp"
#include "common/bench/lesson.hpp"
#include "common/bench/options.hpp"
#include "lessons/shared/training-step/step_report.hpp"
#include "common/report/text_format.hpp"

namespace cudalab {

namespace {

using namespace graphs;

const std::vector<int> kSweepKernels = {1, 5, 10, 20, 50, 100};
constexpr int kSweepReplays = 50;


bool same_shape(const DagShape& a, const DagShape& b) {
  return a.nodes == b.nodes && a.edges == b.edges && a.width == b.width && a.critical_path == b.critical_path &&
         a.roots == b.roots && a.leaves == b.leaves;
}

std::size_t run_and_count(const TrainingStep& step, const GraphExec& exec, cudaStream_t stream) {
  step.poison_outputs();
  exec.launch(stream);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return step.count_correct();
}

class GraphForkJoin final : public Lesson {
 public:
  void add_options(CLI::App& app) override {
    add_step_options(app, options_);
    add_output_file_option(app, "--dot", dot_path_,
                           "write the fork/join graph as Graphviz (cudaGraphDebugDotPrint) to FILE",
                           /*allow_stdout=*/false);
  }
  Repetitions default_repetitions() const override { return {2, 10}; }

  Report run(const RunContext& ctx) override {
    const DeviceInfo device = query_device(ctx.device);
    Report r;
    add_step_params(r, options_);
    if (!dot_path_.empty()) r.params.push_back({"dot", dot_path_, true});

    TrainingStep step(options_.shape, options_.features, 1);
    StepStreams streams(options_.shape.streams);
    const MethodComparison comparison =
        compare_methods(r, device, step, streams, options_, {StepMethod::synchronous, StepMethod::multi_stream, StepMethod::graph_serial, StepMethod::graph_fork_join}, ctx.reps);
    const std::vector<MethodResult>& results = comparison.results;

    if (ctx.tracing()) {
      trace_method(r, StepMethod::graph_fork_join, step, streams, options_, comparison.inputs.primitives,
                   fmt::format("fork/join graph: one launch, {} batches side by side", options_.shape.batches));
    }

    add_shapes(r, step, streams);
    add_method_checks(r, results);
    add_launch_sweep(r, ctx.reps);
    add_update(r, step, streams, ctx.reps);

    r.try_next = {
        {"cudalab graph-forkjoin --dot step.dot", "then: dot -Tsvg step.dot > step.svg, and look at the DAG"},
        {"cudalab graph-forkjoin --streams 1", "one stream: the fork/join graph is a chain again"},
        {"cudalab graph-forkjoin --layers 1 --features 64", "almost no work: launch cost is everything"},
        {"cudalab graph-forkjoin --streams 64 --batches 64", "as wide as the DAG can get"},
    };
    return r;
  }

 private:
  void add_shapes(Report& r, const TrainingStep& step, const StepStreams& streams) const {
    Section s;
    s.key = "dag";
    s.title = "the step as a DAG: fork/join capture vs built node by node";
    s.notes_key = "forkjoin";
    const Graph captured = capture_fork_join(step, streams);
    ExplicitStepGraph built = build_step_graph(step);
    const DagShape captured_shape = shape_of(captured.get());
    const DagShape built_shape = shape_of(built.graph.get());
    const DagShape expected = expected_fork_join_shape(options_.shape);
    add_shape_facts(s, "captured", "fork/join capture", captured_shape);
    add_shape_facts(s, "explicit", "explicit API", built_shape);
    s.facts.push_back({"expected", "expected",
                       fmt::format("{} nodes, {} edges, width {}, critical path {}", expected.nodes, expected.edges,
                                   expected.width, expected.critical_path),
                       "min(B,S) chains of ceil(B/S) batches x (L+2) nodes", true});
    if (!dot_path_.empty()) {
      write_dot(captured.get(), dot_path_);
      s.facts.push_back({"dot", "Graphviz file", dot_path_, "cudaGraphDebugDotPrint of the fork/join capture", true});
    }
    r.checks.push_back(verify_check("dag.same_shape", same_shape(captured_shape, built_shape),
                                    "the explicitly built graph has the same shape as the fork/join capture",
                                    "the explicit builder must add the same nodes and dependencies the capture records"));
    r.checks.push_back(expect_check("dag.expected_shape", same_shape(captured_shape, expected),
                                    "the capture has min(B,S) independent chains, as fork/join should give",
                                    "a different shape means the capture recorded extra nodes or dependencies"));

    // The explicit graph must compute the same step.
    const GraphExec exec(built.graph);
    const std::size_t correct = run_and_count(step, exec, streams.origin());
    r.checks.push_back(verify_check("results.explicit-graph", correct == step.elements(),
                                    fmt::format("explicit-API graph: every batch matches the CPU reference ({} of {})",
                                                format_count(correct), format_count(step.elements())),
                                    "a missing dependency in the explicit graph"));
    r.sections.push_back(std::move(s));
  }

  void add_method_checks(Report& r, const std::vector<MethodResult>& results) const {
    const double multi = median_of(results[1].run.per_step_us);
    const double serial = median_of(results[2].run.per_step_us);
    const double forkjoin = median_of(results[3].run.per_step_us);
    Section v;
    v.key = "verdict";
    v.title = "graphs vs multi-stream";
    v.metrics.push_back(single_value("forkjoin_over_multi", "graph-forkjoin / multi-stream", "x", forkjoin / multi,
                                     "at most 1: the parallel graph keeps up or wins"));
    v.metrics.back().predicted = results[3].predicted_us / results[1].predicted_us;
    v.metrics.push_back(single_value("serial_over_multi", "graph-serial / multi-stream", "x", serial / multi,
                                     "above 1: the serial graph loses (lesson 06)"));
    v.metrics.back().predicted = results[2].predicted_us / results[1].predicted_us;
    r.sections.push_back(std::move(v));
    r.checks.push_back(expect_check("forkjoin_not_slower", forkjoin <= multi,
                                    "graph-forkjoin is at least as fast as multi-stream",
                                    "when each kernel is long, launch cost hides behind the work and both tie; "
                                    "noise may then tip it either way"));
    r.headline = fmt::format("forkjoin {:.2f}x, serial {:.2f}x the multi-stream time", forkjoin / multi, serial / multi);
  }

  void add_launch_sweep(Report& r, const Repetitions& reps) const {
    Section s;
    s.key = "launch";
    s.title = fmt::format("launch cost: K empty kernels, stream vs graph ({} replays per sample)", kSweepReplays);
    s.notes_key = "launch";
    Table t;
    t.key = "launch";
    t.columns = {"K", "stream per kernel", "graph per kernel", "stream / graph", "capture+instantiate", "pays back after"};
    double ratio_at_20 = 0;
    for (int k : kSweepKernels) {
      const LaunchCost cost = measure_launch_cost(k, kSweepReplays, reps);
      const double stream_us = median_of(cost.stream_per_kernel_us);
      const double graph_us = median_of(cost.graph_per_kernel_us);
      const double build_us = median_of(cost.capture_instantiate_us);
      const double saved_per_replay = (stream_us - graph_us) * k;
      const std::string prefix = fmt::format("k{}", k);
      s.metrics.push_back({prefix + ".stream", fmt::format("K={} stream, per kernel", k), "us", cost.stream_per_kernel_us, {}, ""});
      s.metrics.push_back({prefix + ".graph", fmt::format("K={} graph, per kernel", k), "us", cost.graph_per_kernel_us, {}, ""});
      s.metrics.push_back({prefix + ".build", fmt::format("K={} capture+instantiate", k), "us", cost.capture_instantiate_us, {}, ""});
      s.metrics.push_back(single_value(prefix + ".ratio", fmt::format("K={} stream / graph", k), "x", stream_us / graph_us));
      const std::string payback = saved_per_replay > 0 ? fmt::format("{:.0f} replays", std::ceil(build_us / saved_per_replay))
                                                       : std::string("never");
      t.rows.push_back({Cell{std::to_string(k), ""}, Cell{"", prefix + ".stream"}, Cell{"", prefix + ".graph"},
                        Cell{"", prefix + ".ratio"}, Cell{"", prefix + ".build"}, Cell{payback, ""}});
      if (k == 20) {
        ratio_at_20 = stream_us / graph_us;
        r.checks.push_back(expect_check("launch.graph_per_kernel_cheaper", ratio_at_20 >= 3.0,
                                        "a 20-kernel graph costs at most a third per kernel of launching from a stream",
                                        "a fast host CPU shrinks the stream's launch cost; older GPUs and drivers "
                                        "have a larger per-node cost inside graphs"));
      }
    }
    s.tables.push_back(std::move(t));
    r.sections.push_back(std::move(s));
  }

  // Only the buffers change (another step's inputs and outputs): update the instantiated graph
  // in place, or capture again and update, or capture again and instantiate again.
  void add_update(Report& r, const TrainingStep& step, const StepStreams& streams, const Repetitions& reps) const {
    Section s;
    s.key = "update";
    s.title = "new buffers, same graph: update vs re-instantiate (host time)";
    s.notes_key = "update";
    const TrainingStep other(options_.shape, options_.features, 2);
    const TrainingStep* targets[2] = {&other, &step};

    ExplicitStepGraph built = build_step_graph(step);
    GraphExec explicit_exec(built.graph);
    int flip = 0;
    auto set_params = repeat(reps, [&] {
      const auto start = std::chrono::steady_clock::now();
      retarget_step_exec(explicit_exec.get(), built, *targets[flip++ % 2]);
      return host_us_since(start);
    });
    retarget_step_exec(explicit_exec.get(), built, other);
    const std::size_t set_params_correct = run_and_count(other, explicit_exec, streams.origin());

    const Graph first = capture_fork_join(step, streams);
    GraphExec captured_exec(first);
    flip = 0;
    auto exec_update = repeat(reps, [&] {
      const auto start = std::chrono::steady_clock::now();
      const Graph fresh = capture_fork_join(*targets[flip++ % 2], streams);
      cudaGraphExecUpdateResultInfo info{};
      CUDALAB_CUDA_CHECK(cudaGraphExecUpdate(captured_exec.get(), fresh.get(), &info));
      return host_us_since(start);
    });
    {
      const Graph fresh = capture_fork_join(other, streams);
      cudaGraphExecUpdateResultInfo info{};
      CUDALAB_CUDA_CHECK(cudaGraphExecUpdate(captured_exec.get(), fresh.get(), &info));
    }
    const std::size_t exec_update_correct = run_and_count(other, captured_exec, streams.origin());

    flip = 0;
    auto reinstantiate = repeat(reps, [&] {
      const auto start = std::chrono::steady_clock::now();
      const Graph fresh = capture_fork_join(*targets[flip++ % 2], streams);
      const GraphExec exec(fresh);
      return host_us_since(start);
    });
    const Graph fresh = capture_fork_join(other, streams);
    const GraphExec fresh_exec(fresh);
    const std::size_t reinstantiate_correct = run_and_count(other, fresh_exec, streams.origin());

    s.metrics.push_back({"set_params", "cudaGraphExec*NodeSetParams on every node", "us", set_params, {}, "no capture"});
    s.metrics.push_back({"exec_update", "capture again + cudaGraphExecUpdate", "us", exec_update, {}, ""});
    s.metrics.push_back({"reinstantiate", "capture again + cudaGraphInstantiate", "us", reinstantiate, {}, ""});
    r.sections.push_back(std::move(s));

    const std::size_t n = other.elements();
    auto verify = [&](const char* key, const char* how, std::size_t correct) {
      r.checks.push_back(verify_check(fmt::format("results.update.{}", key), correct == n,
                                      fmt::format("after {}: the new buffers' results match the CPU ({} of {})", how,
                                                  format_count(correct), format_count(n)),
                                      "the updated graph still pointed at the old buffers"));
    };
    verify("set_params", "SetParams", set_params_correct);
    verify("exec_update", "cudaGraphExecUpdate", exec_update_correct);
    verify("reinstantiate", "re-instantiation", reinstantiate_correct);
    r.checks.push_back(expect_check("update.cheaper_than_reinstantiate",
                                    median_of(exec_update) < median_of(reinstantiate) &&
                                        median_of(set_params) < median_of(reinstantiate),
                                    "updating an instantiated graph is cheaper than instantiating it again",
                                    "instantiation cost grows with the node count; a tiny graph may instantiate "
                                    "about as fast as it updates"));
  }

  StepOptions options_;
  std::string dot_path_;
};

}  // namespace

std::unique_ptr<Lesson> make_graph_forkjoin() { return std::make_unique<GraphForkJoin>(); }

}  // namespace cudalab
