// The flags lessons 06 and 07 share: the shape of the training step. A lesson's Params derives
// from StepParams and adds its rows with with_step_flags().
#pragma once

#include <algorithm>
#include <string>

#include "common/lesson/flag_table.hpp"
#include "step_model.hpp"

namespace cudalab::graphs {

struct StepParams {
  int batches = 8;      // batches per training step
  int layers = 10;      // layer kernels per batch
  int streams = 4;      // streams the batches are spread over
  int features = 2048;  // elements per batch vector (each layer is features x features)
  // Training steps per timed sample. Two: the slowest method's sample (synchronous, ~6 ms a step
  // on the lab H100) then lasts ~13 ms, far above what events resolve, and the ten samples of
  // each method fit in a GPU turn of two seconds. Every method ends a step before the next one
  // starts on the GPU, so more steps make a sample longer, not different (only the sample's first
  // launch, a few microseconds, is not hidden behind a step before it).
  int steps = 2;
  std::string kernel = "small";  // layer kernels: "small" (a few SMs each) or "fill" (every SM)
  StepShape shape() const { return {batches, layers, streams}; }
  LayerKernel layer_kernel() const { return kernel == "fill" ? LayerKernel::fill : LayerKernel::small; }
};

template <class P>
FlagTable<P>&& with_step_flags(FlagTable<P>&& table) {
  return std::move(table)
      .integer("batches", &P::batches, 1, 64, "batches per training step")
      .integer("layers", &P::layers, 1, 32, "layer kernels per batch")
      .integer("streams", &P::streams, 1, 64, "streams the batches are spread over")
      .integer("features", &P::features, 32, 4096,
               "elements per batch vector; each layer multiplies by a features x features matrix")
      .integer("steps", &P::steps, 1, 1000, "training steps per timed sample")
      .choice("kernel", &P::kernel, {"small", "fill"},
              "layer kernels: small (one block per 128 outputs, a few SMs each) or fill (split over the inputs so "
              "each kernel fills every SM)");
}

// The case lessons 06 and 07 measure with --full beside the flags given: the same step with
// GPU-filling layer kernels. A filling kernel is several times shorter than a small one; a sample
// of at most 10 steps keeps the extra GPU time low (two default steps last ~1 ms, and event
// timing resolves ~1 us).
inline StepParams fill_case(const StepParams& p) {
  StepParams fill = p;
  fill.kernel = "fill";
  fill.steps = std::min(p.steps, 10);
  return fill;
}

}  // namespace cudalab::graphs
