// Lesson 02's flags: one table, read by CLI11 and by the report.
#pragma once

#include <cstdint>
#include <string>

#include "common/lesson/flag_table.hpp"

namespace cudalab::pinned {

struct Params {
  std::uint64_t size = 0;  // 0: the sweep 4KiB..16MiB (..256MiB with --full)
  std::string direction = "both";
  std::string memory = "all";
  bool full = false;  // the sweep's 256 MiB copies too, left out to keep a GPU turn short
};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          // 2GiB at most: bandwidth is flat from ~16MiB on, and each size is pinned, filled and
          // checked for three kinds of host memory (16GiB took minutes on the lab machine).
          .size("size", &Params::size, 0, 2ull << 30, "one transfer size instead of the sweep (0: sweep 4KiB..16MiB)")
          .choice("direction", &Params::direction, {"h2d", "d2h", "both"}, "copy direction(s)")
          .choice("memory", &Params::memory, {"all", "pageable", "pinned", "registered"}, "host memory kind(s)")
          // Bandwidth is flat from ~16MiB on: the 256MiB copies only confirm it, and they are three
          // quarters of the sweep's bytes (each one filled, copied and checked on the host).
          .flag("full", &Params::full, "sweep up to 256MiB instead of 16MiB");
  return table;
}

// Its headline is the PCIe link's bandwidth: with a run on another GPU behind the same host bridge
// one of five pairs on the two-H100 machine read 50.7 against 54.8 GB/s alone, at the edge of half
// the tolerance (README, "Several GPUs"). It takes the turns of those GPUs too.
inline bool shares_host_path_of(const Params&) { return true; }

}  // namespace cudalab::pinned
