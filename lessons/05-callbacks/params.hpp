// Lesson 05's flags: one table, read by CLI11 and by the report.
#pragma once

#include "common/lesson/flag_table.hpp"

namespace cudalab::callbacks {

struct Params {
  int callback_ms = 20;          // how long the slow host function sleeps
  int elements = 65536;          // written by the kernel, checked by the callback
  // Pipeline length. 20: a sample pairs a synchronize loop with a worker pipeline, 43 and 29 ms at
  // 40 batches on the lab H100, whose 16 pairs held 1.1 s of a 1.85 s GPU turn. The efficiency
  // headline already counts the stage that fills the pipe, so it does not depend on the length.
  int batches = 20;
  int batch_us = 500;            // GPU time per pipeline batch
  int batch_elements = 262144;   // elements per pipeline batch (host prepares and checks each)
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          .integer("callback-ms", &Params::callback_ms, 0, 1000,
                   "how long the blocking callback sleeps, in ms (0: no sleep)")
          .integer("elements", &Params::elements, 1, 1 << 24, "elements the kernel writes and the callback checks")
          .integer("batches", &Params::batches, 2, 1000, "batches in the pipeline comparison")
          .integer("batch-us", &Params::batch_us, 10, 100000, "GPU time per pipeline batch, in us")
          .integer("batch-elements", &Params::batch_elements, 1024, 1 << 24,
                   "elements per pipeline batch (the host prepares and checks each one)");
  return table;
}

}  // namespace cudalab::callbacks
