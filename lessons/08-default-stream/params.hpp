// Lesson 08's flags: one table, read by CLI11 and by the report.
#pragma once

#include "common/lesson/flag_table.hpp"

namespace cudalab::default_stream {

struct Params {
  int kernel_us = 200;  // how long each kernel spins
  int kernels = 4;      // kernels per lane (stream or host thread)
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          // At least 20 us: below that, launch gaps are a large share of each kernel and the
          // overlapped and lost times move towards each other. At most 5 ms, so the longest
          // case (33 kernel lengths in a row at --kernels 16) stays under a quarter of a second.
          .integer("kernel-us", &Params::kernel_us, 20, 5000, "how long each kernel runs, in us")
          .integer("kernels", &Params::kernels, 1, 16, "kernels per stream (or per host thread)");
  return table;
}

}  // namespace cudalab::default_stream
