// Lesson 06's flags: the training step's shape, --show-errors and --full.
#pragma once

#include <algorithm>

#include "lessons/shared/training-step/step_params.hpp"

namespace cudalab::graph_pitfall {

struct Params : graphs::StepParams {
  bool show_errors = false;  // make the capture mistakes on purpose and show their errors
  bool full = false;         // also the fill case (graphs::fill_case), left out to keep a turn short
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      graphs::with_step_flags(FlagTable<Params>())
          .flag("show-errors", &Params::show_errors,
                "make the classic capture mistakes on purpose and show the error each one returns")
          .flag("full", &Params::full, "also run the step with GPU-filling layer kernels (the fill case)");
  return table;
}

// The launch-bound case shown beside the default one: one small layer per batch, so the host's
// launch cost, not the GPU, sets the pace. Its step lasts ~70 us, so a sample takes at least 20
// of them: the host's launches of one step then run while the GPU does the step before, as they
// do in a training loop, and a sample lasts over a millisecond.
inline constexpr int kLaunchBoundSteps = 20;
inline graphs::StepParams launch_bound_case(const graphs::StepParams& p) {
  graphs::StepParams small = p;
  small.layers = 1;
  small.features = 64;
  small.steps = std::max(p.steps, kLaunchBoundSteps);
  return small;
}

}  // namespace cudalab::graph_pitfall
