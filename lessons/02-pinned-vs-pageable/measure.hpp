// Lesson 02's experiment on the GPU, and everything it measured, as plain data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/core/device_facts.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::pinned {

enum class MemoryKind { pageable, pinned, registered };
enum class Direction { h2d, d2h };
const char* name_of(MemoryKind k);
const char* name_of(Direction d);
const char* label_of(Direction d);  // "H2D", "D2H"

using Case = std::pair<MemoryKind, Direction>;

// The sweep's sizes, 4 KiB to 16 MiB in steps of 4 (with `full` to 256 MiB), or the one --size;
// and the probe size the other experiments use: 16 MiB, or the largest size measured when that
// is smaller.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t size, bool full);
std::uint64_t probe_size(const std::vector<std::uint64_t>& sizes);

// What allocating host memory cost, host wall time, each sample the pair of calls.
struct AllocationCosts {
  std::vector<double> malloc_touch_ms;  // malloc + memset of every page + free
  std::vector<double> pinned_ms;        // cudaMallocHost + cudaFreeHost
  std::vector<double> register_ms;      // cudaHostRegister + unregister of memory already touched
};

struct Measurements {
  std::vector<std::uint64_t> sizes;
  std::uint64_t probe = 0;
  std::vector<MemoryKind> kinds;
  std::vector<Direction> directions;
  std::optional<PcieLink> pcie;
  std::map<Case, std::vector<std::vector<double>>> copy_ms;  // [case][size index] -> samples
  std::map<Case, Tally> bytes;                               // verified bytes per case, all sizes
  // The headline's blocks (pinned H2D at the probe size: its sweep entry and two bursts) taken
  // again after a passing slowdown (repetitions.hpp, steady_block): how many, and their samples.
  int headline_blocks_set_aside = 0;
  std::vector<double> headline_set_aside_ms;
  std::vector<double> bidirectional_ms;                      // both directions at once (pinned)
  Tally bidirectional_bytes;
  std::map<Case, std::vector<double>> async_call_us;  // host time inside cudaMemcpyAsync at the probe
  std::optional<AllocationCosts> allocation;
  std::vector<Timeline> timelines;

  bool uses(MemoryKind k) const;
  std::size_t probe_index() const;
  double median_copy_ms(MemoryKind k, Direction d, std::size_t size_index) const;
  double probe_ms(MemoryKind k, Direction d) const { return median_copy_ms(k, d, probe_index()); }
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::pinned
