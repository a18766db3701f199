// Lesson 07's experiment: the four methods (and with --full three of them with GPU-filling layer
// kernels), the fork/join DAG captured and built node by node,
// the launch cost of K kernels from a stream and from a graph, what updating an instantiated
// graph costs, and the host cost of one cudaMemcpyAsync call (a lecture's claim).
#pragma once

#include <optional>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/core/device_facts.hpp"
#include "common/core/timeline.hpp"
#include "lessons/shared/training-step/step_results.hpp"
#include "params.hpp"

namespace cudalab::graph_forkjoin {

inline constexpr int kSweepReplays = 50;

struct SweepPoint {
  int kernels = 0;
  graphs::LaunchCost cost;
};

struct UpdateCosts {
  std::vector<double> set_params_us, exec_update_us, reinstantiate_us;
  std::size_t set_params_correct = 0, exec_update_correct = 0, reinstantiate_correct = 0;
};

struct Measurements {
  graphs::ModelInputs inputs;
  graphs::MethodRuns runs;
  std::size_t elements = 0;
  std::optional<graphs::StepCase> fill;  // --full: the flags as given, with GPU-filling layer kernels (graphs::fill_case)
  DagShape captured, built;
  std::size_t explicit_correct = 0;
  std::vector<SweepPoint> sweep;
  UpdateCosts update;
  std::vector<double> memcpy_async_call_us;  // host time inside one small pinned cudaMemcpyAsync
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::graph_forkjoin
