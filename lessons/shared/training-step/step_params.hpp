// The flags lessons 06 and 07 share: the shape of the training step. A lesson's Params derives
// from StepParams and adds its rows with with_step_flags().
#pragma once

#include "common/lesson/flag_table.hpp"
#include "step_model.hpp"

namespace cudalab::graphs {

struct StepParams {
  int batches = 8;      // batches per training step
  int layers = 10;      // layer kernels per batch
  int streams = 4;      // streams the batches are spread over
  int features = 2048;  // elements per batch vector (each layer is features x features)
  int steps = 20;       // training steps per timed sample
  StepShape shape() const { return {batches, layers, streams}; }
};

template <class P>
FlagTable<P>&& with_step_flags(FlagTable<P>&& table) {
  return std::move(table)
      .integer("batches", &P::batches, 1, 64, "batches per training step")
      .integer("layers", &P::layers, 1, 32, "layer kernels per batch")
      .integer("streams", &P::streams, 1, 64, "streams the batches are spread over")
      .integer("features", &P::features, 32, 4096,
               "elements per batch vector; each layer multiplies by a features x features matrix")
      .integer("steps", &P::steps, 1, 1000, "training steps per timed sample");
}

}  // namespace cudalab::graphs
