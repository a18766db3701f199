// Lesson 06's experiment: the step run as multi-stream code and as one-batch graphs launched in a
// loop, in the default (GPU-bound) case and in a launch-bound case, and with --full also with
// GPU-filling layer kernels; the one-batch graph's shape;
// with --show-errors, the capture mistakes and capture modes with the errors they return.
#pragma once

#include <optional>
#include <vector>

#include "capture_mistakes.hpp"
#include "common/lesson/lesson.hpp"
#include "common/core/device_facts.hpp"
#include "common/core/timeline.hpp"
#include "lessons/shared/training-step/step_results.hpp"
#include "params.hpp"

namespace cudalab::graph_pitfall {

inline const std::vector<graphs::StepMethod> kMethods = {graphs::StepMethod::synchronous,
                                                         graphs::StepMethod::multi_stream,
                                                         graphs::StepMethod::graph_serial};
// The launch-bound case adds the fork/join graph: one launch for the whole step.
inline const std::vector<graphs::StepMethod> kLaunchBoundMethods = {graphs::StepMethod::multi_stream,
                                                                    graphs::StepMethod::graph_serial,
                                                                    graphs::StepMethod::graph_fork_join};
inline constexpr std::size_t kProbeElements = 1 << 16;

using graphs::StepCase;

struct Measurements {
  StepCase main;          // the flags as given
  StepCase launch_bound;  // one small layer per batch
  std::optional<StepCase> fill;  // --full: the flags as given, with GPU-filling layer kernels (graphs::fill_case)
  DagShape one_batch;     // the graph one batch captures to
  std::vector<graphs::CaptureMistake> mistakes;  // --show-errors
  std::optional<std::size_t> healthy_after_mistakes;  // smoke kernel elements right afterwards
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::graph_pitfall
