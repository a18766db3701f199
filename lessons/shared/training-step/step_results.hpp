// What the training step's runs measured, as plain data: the GPU side (step_measure.hpp) fills it,
// the model and the reports of lessons 06 and 07 read it without CUDA.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "step_params.hpp"

namespace cudalab::graphs {

struct MethodRun {
  std::vector<double> per_step_us;  // one sample per repetition: (time of `steps` steps) / steps
  std::size_t correct = 0;          // elements right after the last repetition
};

// A chain of empty kernels launched from a stream, and the same chain captured as a graph:
// time per kernel in microseconds (measure_launch_cost, step_runs.hpp).
struct LaunchCost {
  std::vector<double> stream_per_kernel_us;
  std::vector<double> graph_per_kernel_us;
  std::vector<double> capture_instantiate_us;  // host time to capture + instantiate the chain
};

// The chain the model's launch costs come from: kChainKernels empty kernels, launched
// kChainReplays times per sample (ModelInputs::chain20).
inline constexpr int kChainKernels = 20;
inline constexpr int kChainReplays = 50;

// The model's inputs, measured in this run: op durations, stream launch cost, graph node cost.
struct ModelInputs {
  StepPrimitives primitives;
  LaunchCost chain20;  // 20 empty kernels, stream vs graph
  KernelFootprint footprint;  // of the layer kernel the step ran
};

// Each method's run, looked up by method.
using MethodRuns = std::map<StepMethod, MethodRun>;

// The methods a case ran: what the model is asked to predict for it.
inline std::vector<StepMethod> methods_of(const MethodRuns& runs) {
  std::vector<StepMethod> methods;
  for (const auto& run : runs) methods.push_back(run.first);
  return methods;
}

// One shape of the step, measured: its flags, the model's inputs and each method's run.
struct StepCase {
  StepParams params;
  std::size_t elements = 0;
  ModelInputs inputs;
  MethodRuns runs;
};

// The fill case runs the three methods its comparisons need: streams (multi-stream against the
// one-stream graph-serial) and graphs (graph-forkjoin against multi-stream).
inline const std::vector<StepMethod> kFillMethods = {StepMethod::multi_stream, StepMethod::graph_serial,
                                                     StepMethod::graph_fork_join};

}  // namespace cudalab::graphs
