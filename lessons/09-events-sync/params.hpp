// Lesson 09's flags: one table, read by CLI11 and by the report.
#pragma once

#include "common/lesson/flag_table.hpp"

namespace cudalab::events_sync {

struct Params {
  int kernel_us = 500;       // GPU time of the kernel every wait waits for
  int records = 256;         // event records per sample in the record-cost experiment
  int producer_us = 100;     // the producer spins this long before it writes (widens the race)
  int elements = 1 << 20;    // elements the producer writes and the consumer transforms
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          .integer("kernel-us", &Params::kernel_us, 20, 100000, "GPU time of the kernel each wait waits for, in us")
          .integer("records", &Params::records, 8, 4096, "event records per sample when timing cudaEventRecord")
          .integer("producer-us", &Params::producer_us, 0, 100000,
                   "how long the producer kernel spins before it writes, in us")
          .integer("elements", &Params::elements, 1, 1 << 24, "elements the producer writes and the consumer reads");
  return table;
}

}  // namespace cudalab::events_sync
