#include "model.hpp"

#include <algorithm>
#include <iterator>

#include "common/core/stats.hpp"

namespace cudalab::pinned {

namespace {
constexpr std::uint64_t kSweepFirst = 4ull << 10;
// 16 MiB: bandwidth is flat from there on (lab H100: 54.7 GB/s at 16 MiB, 55.1 at 256 MiB), and
// every step above it costs GPU time in the turn for a figure the same as the one below.
constexpr std::uint64_t kProbeSize = 16ull << 20;
// The sweep ends at the probe; --full adds one step more.
constexpr std::uint64_t kSweepLast = kProbeSize;
constexpr std::uint64_t kFullSweepLast = 256ull << 20;
}  // namespace

const char* name_of(MemoryKind k) {
  return k == MemoryKind::pageable ? "pageable" : k == MemoryKind::pinned ? "pinned" : "registered";
}
const char* name_of(Direction d) { return d == Direction::h2d ? "h2d" : "d2h"; }
const char* label_of(Direction d) { return d == Direction::h2d ? "H2D" : "D2H"; }

std::vector<std::uint64_t> sweep_sizes(std::uint64_t size, bool full) {
  if (size != 0) return {size};
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t n = kSweepFirst; n <= (full ? kFullSweepLast : kSweepLast); n *= 4) sizes.push_back(n);
  return sizes;
}

std::uint64_t probe_size(const std::vector<std::uint64_t>& sizes) {
  std::uint64_t probe = sizes.front();
  for (auto n : sizes) {
    if (n <= kProbeSize) probe = n;
  }
  return probe;
}

bool Measurements::uses(MemoryKind k) const { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); }

std::size_t Measurements::probe_index() const {
  return static_cast<std::size_t>(std::distance(sizes.begin(), std::find(sizes.begin(), sizes.end(), probe)));
}

double Measurements::median_copy_ms(MemoryKind k, Direction d, std::size_t size_index) const {
  return median_of(copy_ms.at({k, d}).at(size_index));
}

Prediction predict(const Params&, const Measurements& m) {
  Prediction out;
  if (m.sizes.size() >= 2) {
    for (const auto& [key, per_size] : m.copy_ms) {
      std::vector<double> bytes(m.sizes.begin(), m.sizes.end()), seconds;
      for (const auto& samples : per_size) seconds.push_back(median_of(samples) * 1e-3);
      out.fits[key] = fit_transfer_time(bytes, seconds);
    }
  }
  if (m.allocation && m.uses(MemoryKind::pinned) && m.uses(MemoryKind::pageable)) {
    BreakEven b;
    b.direction = m.directions.front();
    b.saving_ms = m.probe_ms(MemoryKind::pageable, b.direction) - m.probe_ms(MemoryKind::pinned, b.direction);
    b.alloc_extra_ms = median_of(m.allocation->pinned_ms) - median_of(m.allocation->malloc_touch_ms);
    const double pageable = m.probe_ms(MemoryKind::pageable, b.direction);
    const double pinned = m.probe_ms(MemoryKind::pinned, b.direction);
    b.alloc_copies = break_even_transfers(b.alloc_extra_ms, pageable, pinned);
    b.register_ms = median_of(m.allocation->register_ms);
    b.register_copies = break_even_transfers(b.register_ms, pageable, pinned);
    out.break_even = b;
  }
  return out;
}

}  // namespace cudalab::pinned
