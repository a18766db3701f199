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

// Its cudaFree headline (alloc.speedup) is a host-side figure: with a student of 08 on the other GPU
// of the two-H100 machine, 2 of 8 of a class spread by --device auto read it as noisy (alloc.kept
// spread 84%), while its stream-0 headline held. It takes the turns of the GPUs behind its host
// bridge too (README, "Several GPUs").
inline bool shares_host_path_of(const Params&) { return true; }

}  // namespace cudalab::default_stream
