#include "step_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/bench/options.hpp"
#include "common/report/text_format.hpp"
#include "common/trace/traced_run.hpp"

namespace cudalab::graphs {

void add_step_options(CLI::App& app, StepOptions& o) {
  add_int_option(app, "--batches", o.shape.batches, 1, 64, "batches per training step");
  add_int_option(app, "--layers", o.shape.layers, 1, 32, "layer kernels per batch");
  add_int_option(app, "--streams", o.shape.streams, 1, 64, "streams the batches are spread over");
  add_int_option(app, "--features", o.features, 32, 4096,
                 "elements per batch vector; each layer multiplies by a features x features matrix");
  add_int_option(app, "--steps", o.steps, 1, 1000, "training steps per timed sample");
}

void add_step_params(Report& r, const StepOptions& o) {
  r.params.push_back({"batches", std::to_string(o.shape.batches), true});
  r.params.push_back({"layers", std::to_string(o.shape.layers), true});
  r.params.push_back({"streams", std::to_string(o.shape.streams), true});
  r.params.push_back({"features", std::to_string(o.features), true});
  r.params.push_back({"steps", std::to_string(o.steps), true});
}

ModelInputs measure_model_inputs(const TrainingStep& step, int copy_engines, int max_concurrent_kernels,
                                 const Repetitions& reps) {
  ModelInputs in;
  in.primitives = measure_primitives(step, reps);
  in.chain20 = measure_launch_cost(20, 50, reps);
  in.primitives.stream_launch_us = median_of(in.chain20.stream_per_kernel_us);
  in.primitives.graph_node_us = median_of(in.chain20.graph_per_kernel_us);
  in.primitives.copy_engines = copy_engines;
  in.primitives.max_concurrent_kernels = max_concurrent_kernels;
  return in;
}

Section primitives_section(const ModelInputs& in) {
  Section s;
  s.key = "primitives";
  s.title = "the model's inputs, measured in this run";
  s.notes_key = "model";
  const auto& p = in.primitives;
  s.metrics.push_back(single_value("h2d", "H2D of one batch", "us", p.h2d_us, "per copy, in a graph chain of 20"));
  s.metrics.push_back(single_value("kernel", "one layer kernel", "us", p.kernel_us, "per kernel, in a graph chain of 20"));
  s.metrics.push_back(single_value("d2h", "D2H of one batch", "us", p.d2h_us, "per copy, in a graph chain of 20"));
  Metric stream_cost{"launch.stream", "empty kernel from a stream", "us", in.chain20.stream_per_kernel_us, {},
                     "per kernel, 20-kernel chain: the host's launch cost"};
  Metric graph_cost{"launch.graph", "empty kernel inside a graph", "us", in.chain20.graph_per_kernel_us, {},
                    "per node, 20-node graph"};
  s.metrics.push_back(std::move(stream_cost));
  s.metrics.push_back(std::move(graph_cost));
  return s;
}

std::string method_key(StepMethod method) { return std::string("step.") + method_name(method); }

MethodResult run_method(StepMethod method, const TrainingStep& step, const StepStreams& streams,
                        const StepOptions& o, const StepPrimitives& primitives, const Repetitions& reps) {
  MethodResult result{method, {}, predict_step_us(method, o.shape, primitives)};
  switch (method) {
    case StepMethod::synchronous:
      result.run = run_synchronous(step, streams, o.steps, reps);
      break;
    case StepMethod::multi_stream:
      result.run = run_multi_stream(step, streams, o.steps, reps);
      break;
    case StepMethod::graph_serial: {
      const auto execs = instantiate_serial_graphs(step, streams.origin());
      result.run = run_graph_serial(step, streams, execs, o.steps, reps);
      break;
    }
    case StepMethod::graph_fork_join: {
      const Graph graph = capture_fork_join(step, streams);
      const GraphExec exec(graph);
      result.run = run_graph_once_per_step(step, streams, exec, o.steps, reps);
      break;
    }
  }
  return result;
}

void trace_method(Report& r, StepMethod method, const TrainingStep& step, const StepStreams& streams,
                  const StepOptions& options, const StepPrimitives& primitives, const std::string& title) {
  // Only streams that carry work get a lane: graphs are launched into the origin, plain
  // multi-stream code queues each batch on a worker (the origin only forks and joins).
  std::vector<NamedLane> lanes;
  if (method == StepMethod::graph_serial || method == StepMethod::graph_fork_join) {
    lanes.push_back({streams.origin(), "graph launches"});
  } else {
    for (int w = 0; w < streams.count(); ++w) lanes.push_back({streams.worker(w), fmt::format("stream {}", w)});
  }
  StepOptions one_step = options;
  one_step.steps = 1;
  traced_run(r.timelines, title, lanes, [&](TraceSession&) {
    (void)run_method(method, step, streams, one_step, primitives, Repetitions{0, 1});
  });
}

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

Section methods_section(const std::vector<MethodResult>& results, const StepOptions& o) {
  Section s;
  s.key = "methods";
  s.title = fmt::format("one training step: {} batches x (H2D + {} layers + D2H), {} stream{}", o.shape.batches,
                        o.shape.layers, o.shape.streams, o.shape.streams == 1 ? "" : "s");
  s.notes_key = "methods";
  Table t;
  t.key = "methods";
  t.columns = {"method", "how", "measured per step", "model"};
  for (const auto& r : results) {
    Metric m{method_key(r.method), method_name(r.method), "us", r.run.per_step_us, r.predicted_us,
             method_description(r.method, o.shape.streams)};
    t.rows.push_back({Cell{method_name(r.method), ""}, Cell{method_description(r.method, o.shape.streams), ""},
                      Cell{"", m.key}, Cell{fmt::format("{:.1f} us", r.predicted_us), ""}});
    s.metrics.push_back(std::move(m));
  }
  s.tables.push_back(std::move(t));
  return s;
}

Check method_verify_check(const MethodResult& r, std::size_t elements) {
  return verify_check(fmt::format("results.{}", method_name(r.method)), r.run.correct == elements,
                      fmt::format("{}: every batch matches the CPU reference ({} of {} elements)", method_name(r.method),
                                  format_count(r.run.correct), format_count(elements)),
                      "a wrong element means a missing dependency (a batch read before its copy landed) or a "
                      "graph that ran on the wrong buffers");
}

void add_shape_facts(Section& s, const std::string& prefix, const std::string& label, const DagShape& shape) {
  s.facts.push_back({prefix + ".nodes", label + ": nodes", std::to_string(shape.nodes), "", true});
  s.facts.push_back({prefix + ".edges", label + ": edges", std::to_string(shape.edges), "", true});
  s.facts.push_back({prefix + ".width", label + ": width", std::to_string(shape.width),
                     "most nodes that can run at once (largest antichain, exact)", true});
  s.facts.push_back({prefix + ".widest_level", label + ": widest level", std::to_string(shape.widest_level),
                     "most nodes at one depth: a lower bound on width", true});
  s.facts.push_back({prefix + ".critical_path", label + ": critical path", std::to_string(shape.critical_path),
                     "nodes on the longest dependency chain", true});
}

DagShape expected_fork_join_shape(const StepShape& shape) {
  const std::size_t chains = static_cast<std::size_t>(std::min(shape.batches, shape.streams));
  const std::size_t per_batch = static_cast<std::size_t>(shape.layers) + 2;
  const std::size_t longest_chain_batches =
      static_cast<std::size_t>((shape.batches + shape.streams - 1) / shape.streams);
  DagShape d;
  d.nodes = static_cast<std::size_t>(shape.batches) * per_batch;
  d.edges = d.nodes - chains;
  d.width = chains;
  d.widest_level = chains;
  d.critical_path = longest_chain_batches * per_batch;
  d.roots = chains;
  d.leaves = chains;
  return d;
}

MethodComparison compare_methods(Report& r, const DeviceInfo& device, const TrainingStep& step,
                                 const StepStreams& streams, const StepOptions& options,
                                 const std::vector<StepMethod>& methods, const Repetitions& reps) {
  const int max_concurrent = device.concurrent_kernels ? 128 : 1;  // CUDA's limit on sm_90
  MethodComparison c{measure_model_inputs(step, device.async_engine_count, max_concurrent, reps), {}};
  r.sections.push_back(primitives_section(c.inputs));
  for (StepMethod m : methods) c.results.push_back(run_method(m, step, streams, options, c.inputs.primitives, reps));
  r.sections.push_back(methods_section(c.results, options));
  for (const auto& res : c.results) r.checks.push_back(method_verify_check(res, step.elements()));
  return c;
}

}  // namespace cudalab::graphs
