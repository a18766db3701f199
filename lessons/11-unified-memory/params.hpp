// Lesson 11's flags: one table, read by CLI11 and by the report.
#pragma once

#include <cstdint>

#include "common/lesson/flag_table.hpp"

namespace cudalab::unified_memory {

// Chunks and probes are cut at this granularity, so no two of them share a page: two streams
// migrating halves of one page would make the driver move it back and forth.
inline constexpr std::uint64_t kSizeGranule = 64ull << 10;

struct Params {
  // Bytes of input, and as many of output. 32 MiB: each chunk's copy (4 MiB) still lasts far longer
  // than a launch, and the lesson's turn stays under two seconds (64 MiB held the H100 2.4 s).
  std::uint64_t size = 32ull << 20;
  int streams = 4;                   // the pipelined ways: two chunks per stream
  int reuse = 8;                     // the zero-copy sweep reads each element 1, 2, 4, ... this many times
  int sparse = 64;                   // the sparse read takes one 128-byte line in this many
};

inline int chunk_count(const Params& p) { return 2 * p.streams; }

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          // At most 1 GiB: the lesson holds the data four times over (pinned, device, managed, and the
          // CPU's reference), and the default turn must stay short.
          .size("size", &Params::size, 1ull << 20, 1ull << 30,
                "bytes of input (and of output), a multiple of 64KiB")
          .integer("streams", &Params::streams, 1, 8, "streams the pipelined ways spread their chunks over (two each)")
          .integer("reuse", &Params::reuse, 1, 64,
                   "the zero-copy sweep reads each element 1, 2, 4, ... up to this many times")
          .integer("sparse", &Params::sparse, 2, 4096, "the sparse read takes one 128-byte line in this many");
  return table;
}

// Every way it measures moves the workload over the PCIe link, as lesson 02's copies do: it takes the
// turns of the GPUs behind the same host bridge too (README, "Several GPUs").
inline bool shares_host_path_of(const Params&) { return true; }

}  // namespace cudalab::unified_memory
