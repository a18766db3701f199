// Lesson 07's flags: the training step's shape, --dot FILE and --full.
#pragma once

#include <string>
#include <vector>

#include "lessons/shared/training-step/step_params.hpp"
#include "lessons/shared/training-step/step_results.hpp"

namespace cudalab::graph_forkjoin {

struct Params : graphs::StepParams {
  std::string dot;    // write the fork/join graph as Graphviz here
  bool full = false;  // also the fill case and the whole launch sweep, left out to keep a turn short
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      graphs::with_step_flags(FlagTable<Params>())
          .output_file("dot", &Params::dot, "write the fork/join graph as Graphviz (cudaGraphDebugDotPrint) to FILE")
          .flag("full", &Params::full,
                "also run the step with GPU-filling layer kernels (the fill case) and time the launch cost at "
                "every chain length K, not only at 20");
  return table;
}

// The chain lengths K whose launch cost the launch section shows. Without --full only K = 20, the
// chain the model's inputs already timed (the section's check is at K = 20); the others cost
// ~0.6 s of GPU time on the lab H100, most of it the 100-kernel chains.
inline const std::vector<int> kSweepKernels = {1, 5, 10, 20, 50, 100};
inline std::vector<int> sweep_kernels(const Params& p) {
  return p.full ? kSweepKernels : std::vector<int>{graphs::kChainKernels};
}

}  // namespace cudalab::graph_forkjoin
