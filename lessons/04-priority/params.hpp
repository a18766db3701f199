// Lesson 04's flags: one table, read by CLI11 and by the report.
#pragma once

#include <optional>

#include "common/lesson/flag_table.hpp"

namespace cudalab::priority {

struct Params {
  int waves = 20;                // background length, in full waves of every SM
  int block_us = 100;            // how long each background block spins
  int urgent_blocks = 8;         // size of the latency-critical kernel
  std::optional<int> priority;   // for the urgent stream; default: the device's most urgent
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          // Zero waves is refused: with no background there is nothing for priority to jump over.
          .integer("waves", &Params::waves, 1, 100, "background length in waves (each wave fills every SM once)")
          // At least 10 us: %globaltimer ticks as coarsely as 1 us on some GPUs. At most 5 ms, so
          // the longest background (100 waves) stays under a second.
          .integer("block-us", &Params::block_us, 10, 5000, "how long each background block runs, in us")
          .integer("urgent-blocks", &Params::urgent_blocks, 1, 1024, "thread blocks in the urgent kernel")
          // Any whole number is accepted on purpose: CUDA clamps values outside the device's range
          // and the lesson shows the value it got.
          .optional_integer("priority", &Params::priority, -1000, 1000, "highest",
                            "priority of the urgent stream (lower = more urgent; default: the device's highest)");
  return table;
}

}  // namespace cudalab::priority
