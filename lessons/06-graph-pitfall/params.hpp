// Lesson 06's flags: the training step's shape, and --show-errors.
#pragma once

#include "lessons/shared/training-step/step_params.hpp"

namespace cudalab::graph_pitfall {

struct Params : graphs::StepParams {
  bool show_errors = false;  // make the capture mistakes on purpose and show their errors
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      graphs::with_step_flags(FlagTable<Params>())
          .flag("show-errors", &Params::show_errors,
                "make the classic capture mistakes on purpose and show the error each one returns");
  return table;
}

// The launch-bound case shown beside the default one: one small layer per batch, so the host's
// launch cost, not the GPU, sets the pace.
inline graphs::StepParams launch_bound_case(const graphs::StepParams& p) {
  graphs::StepParams small = p;
  small.layers = 1;
  small.features = 64;
  return small;
}

}  // namespace cudalab::graph_pitfall
