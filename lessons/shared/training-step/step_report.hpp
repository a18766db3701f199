// Flags and report pieces lessons 06 and 07 share: the training-step options, the primitives
// section, one row per method with its prediction, and the verify check of each method.
#pragma once

#include <CLI/CLI.hpp>

#include "common/cuda/device.hpp"
#include "common/report/report.hpp"
#include "step_runs.hpp"

namespace cudalab::graphs {

struct StepOptions {
  StepShape shape;        // --batches, --layers, --streams
  int features = 2048;    // --features: elements per batch vector (the layer is features x features)
  int steps = 20;         // --steps: training steps per timed sample
};

void add_step_options(CLI::App& app, StepOptions& options);
void add_step_params(Report& report, const StepOptions& options);

// The model's inputs, measured in this run: op durations, stream launch cost, graph node cost.
struct ModelInputs {
  StepPrimitives primitives;
  LaunchCost chain20;  // 20 empty kernels, stream vs graph
};
ModelInputs measure_model_inputs(const TrainingStep& step, int copy_engines, int max_concurrent_kernels,
                                 const Repetitions& reps);
Section primitives_section(const ModelInputs& inputs);

struct MethodResult {
  StepMethod method;
  MethodRun run;
  double predicted_us = 0;
};
MethodResult run_method(StepMethod method, const TrainingStep& step, const StepStreams& streams,
                        const StepOptions& options, const StepPrimitives& primitives, const Repetitions& reps);

// One more, untimed training step of `method` under CUPTI (run_method with one step and one
// repetition), added to r.timelines: graph launches on the origin's lane, batches on "stream i".
void trace_method(Report& r, StepMethod method, const TrainingStep& step, const StepStreams& streams,
                  const StepOptions& options, const StepPrimitives& primitives, const std::string& title);

// Metric key of a method: "step.multi-stream".
std::string method_key(StepMethod method);
Section methods_section(const std::vector<MethodResult>& results, const StepOptions& options);
Check method_verify_check(const MethodResult& result, std::size_t elements);

// What both graph lessons do first: measure the model's inputs on this device, run each of
// `methods` (timed, predicted, verified), and add the primitives and methods sections and one
// verify check per method to `r`.
struct MethodComparison {
  ModelInputs inputs;
  std::vector<MethodResult> results;  // in the order of `methods`
};
MethodComparison compare_methods(Report& r, const DeviceInfo& device, const TrainingStep& step,
                                 const StepStreams& streams, const StepOptions& options,
                                 const std::vector<StepMethod>& methods, const Repetitions& reps);

// Facts of a graph's shape, keyed with `prefix`: "forkjoin.nodes".
void add_shape_facts(Section& section, const std::string& prefix, const std::string& label, const DagShape& shape);

// What the fork/join DAG of this workload must look like: S chains of ceil(B/S) batches.
DagShape expected_fork_join_shape(const StepShape& shape);

}  // namespace cudalab::graphs
