// Lesson 03's flags: one table, read by CLI11 and by the report.
#pragma once

#include <cstdint>
#include <string>

#include "common/lesson/flag_table.hpp"

namespace cudalab::stream_overlap {

inline constexpr int kMaxKernelIters = 1000000;

struct Params {
  std::uint64_t size = 64ull << 20;  // bytes pushed through the pipeline
  int streams = 4;
  int chunks = 0;        // 0: two per stream
  int kernel_iters = 0;  // 0: calibrate so one chunk's kernel takes as long as its copy
  std::string memory = "both";
  bool full = false;  // also replay lecture 002's program (lecture_replica.hpp), ~1.7 s of GPU time
};

inline int chunk_count(const Params& p) { return p.chunks == 0 ? 2 * p.streams : p.chunks; }

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          .size("size", &Params::size, 4096, 1ull << 40, "bytes pushed through the pipeline")
          .integer("streams", &Params::streams, 1, 64, "streams the chunks are spread over")
          .integer("chunks", &Params::chunks, 0, 1024,
                   "chunks the data is split into, at least --streams (0: two per stream)")
          .integer("kernel-iters", &Params::kernel_iters, 0, kMaxKernelIters,
                   "multiply-adds per byte in the kernel (0: calibrate so one chunk's kernel takes as long as its copy)")
          .choice("memory", &Params::memory, {"both", "pinned", "pageable"},
                  "host memory of the overlapped run that --timeline draws (every variant is timed either way)")
          .flag("full", &Params::full, "also replay lecture 002's program as written (the lecture section)");
  return table;
}

// Paired with a run on another GPU behind the same host bridge, its headline fell by about a fifth
// on the two-H100 machine (five pairs; README, "Several GPUs"): it takes the turns of those GPUs too.
inline bool shares_host_path_of(const Params&) { return true; }

}  // namespace cudalab::stream_overlap
