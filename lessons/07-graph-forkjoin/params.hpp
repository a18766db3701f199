// Lesson 07's flags: the training step's shape, and --dot FILE.
#pragma once

#include <string>

#include "lessons/shared/training-step/step_params.hpp"

namespace cudalab::graph_forkjoin {

struct Params : graphs::StepParams {
  std::string dot;  // write the fork/join graph as Graphviz here
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      graphs::with_step_flags(FlagTable<Params>())
          .output_file("dot", &Params::dot, "write the fork/join graph as Graphviz (cudaGraphDebugDotPrint) to FILE");
  return table;
}

}  // namespace cudalab::graph_forkjoin
