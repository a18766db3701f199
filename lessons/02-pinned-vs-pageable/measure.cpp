// Lesson 02's experiment: copies a buffer host->device and back for three kinds of host memory
// over a size sweep, runs both directions at once, times how long cudaMemcpyAsync keeps the
// host, and what allocating and pinning host memory costs. Every copied byte is checked.
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/host_pattern.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/nvml.hpp"
#include "common/gpu/streams.hpp"
#include "common/gpu/timing.hpp"
#include "common/core/text_format.hpp"
#include "common/gpu/traced_run.hpp"

namespace cudalab::pinned {

namespace {

// Big copies need fewer repeats for a steady median; this keeps the default run to seconds.
constexpr std::uint64_t kFullRepeatsUpTo = 16ull << 20;
constexpr int kMinRepeats = 5;
// Host times of single calls, where adaptive repetition buys nothing: a warm-up and a few
// samples, all inside the GPU turn. Allocating 64 MiB three ways took ~60 ms a sample on the
// lab H100 (16 MiB, the probe now, about a quarter of that); each asynchronous call then waits for its copy, ~5 ms pageable, ~1 ms pinned.
constexpr Repetitions kAllocationReps{1, 3};
constexpr Repetitions kAsyncCallReps{1, 5};

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using MallocBuffer = std::unique_ptr<unsigned char, FreeDeleter>;
MallocBuffer malloc_bytes(std::size_t bytes) {
  auto* p = static_cast<unsigned char*>(std::malloc(bytes));
  if (p == nullptr) throw RuntimeError(msg("malloc of {bytes} bytes failed", arg("bytes", bytes)));
  return MallocBuffer(p);
}

// One kind of host memory of `bytes`.
struct HostMemory {
  MemoryKind kind;
  MallocBuffer plain;  // pageable, and the memory a registration page-locks
  PinnedBuffer<unsigned char> pinned;
  HostRegistration registration;

  HostMemory(MemoryKind k, std::size_t bytes) : kind(k) {
    if (k == MemoryKind::pinned) {
      pinned = PinnedBuffer<unsigned char>(bytes);
    } else {
      plain = malloc_bytes(bytes);
      std::memset(plain.get(), 0, bytes);  // touch every page before it is timed or registered
      if (k == MemoryKind::registered) registration = HostRegistration(plain.get(), bytes);
    }
  }
  unsigned char* data() const { return kind == MemoryKind::pinned ? pinned.data() : plain.get(); }
};

void copy_async(Direction d, unsigned char* host, unsigned char* device, std::size_t bytes, cudaStream_t stream) {
  if (d == Direction::h2d) {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  } else {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  }
}

Repetitions reps_for(std::uint64_t n, Repetitions reps) {
  if (n > kFullRepeatsUpTo) {
    reps.repeat = std::max<int>(std::min(reps.repeat, kMinRepeats), static_cast<int>(reps.repeat * kFullRepeatsUpTo / n));
    reps.warmup = std::min(reps.warmup, 1);
  }
  return reps;
}

// Times one copy of `n` bytes between `host` and the device. A pinned or registered copy starts
// behind a latch, so the host's launch call stays out of its bandwidth; a pageable one cannot
// (its cudaMemcpyAsync waits for the copy), and that wait is part of what pageable memory costs.
std::vector<double> time_copy(const HostMemory& host, DeviceBuffer<unsigned char>& device, std::uint64_t n,
                              Direction d, const Repetitions& reps, const Stream& stream) {
  const Launch launch = host.kind == MemoryKind::pageable ? Launch::as_enqueued : Launch::behind_latch;
  return time_on_stream(stream, reps, [&](cudaStream_t s) { copy_async(d, host.data(), device.data(), n, s); }, launch);
}

// A block of the headline, pinned H2D at the probe size, in a steady block: one taken through a
// passing slowdown of a shared server's bus is set aside and taken again, and the run keeps it.
std::vector<double> time_headline_block(Measurements& m, const HostMemory& host, DeviceBuffer<unsigned char>& device,
                                        const Repetitions& reps, const Stream& stream) {
  SteadyBlock block = steady_block(kDefaultSpreadTolerance, [&] {
    return time_copy(host, device, m.probe, Direction::h2d, reps, stream);
  });
  m.headline_blocks_set_aside += block.blocks_set_aside;
  m.headline_set_aside_ms.insert(m.headline_set_aside_ms.end(), block.set_aside.begin(), block.set_aside.end());
  return std::move(block.kept);
}

// One size of the sweep for one kind of memory: H2D of a pattern over a poisoned device buffer,
// read back and checked; D2H of the device's copy over poisoned host memory, checked.
void sweep_one_size(Measurements& m, const HostMemory& host, std::size_t si, const RunContext& ctx,
                    DeviceBuffer<unsigned char>& device, std::vector<unsigned char>& readback, const Stream& stream) {
  const std::uint64_t n = m.sizes[si];
  const auto seed = static_cast<std::uint32_t>(si + 1);
  const Repetitions reps = reps_for(n, ctx.reps);
  auto uses = [&](Direction d) { return std::find(m.directions.begin(), m.directions.end(), d) != m.directions.end(); };
  fill_pattern(host.data(), n, seed);
  // On `stream`, in order with the copies: a cudaMemset on the legacy stream is not ordered with a
  // non-blocking stream, and on a GPU busy with another user's kernels it landed after the copies
  // (lab H100: 16,305 bytes of the pinned sweep wrong beside a kernel tenant).
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xFF, n, stream));
  if (uses(Direction::h2d)) {
    const bool headline = host.kind == MemoryKind::pinned && n == m.probe;
    m.copy_ms[{host.kind, Direction::h2d}].push_back(headline ? time_headline_block(m, host, device, reps, stream)
                                                              : time_copy(host, device, n, Direction::h2d, reps, stream));
    CUDALAB_CUDA_CHECK(cudaMemcpy(readback.data(), device.data(), n, cudaMemcpyDeviceToHost));
    m.bytes[{host.kind, Direction::h2d}].add(count_pattern_matches(readback.data(), n, seed), n);
  } else {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), n, cudaMemcpyHostToDevice, stream));
  }
  if (uses(Direction::d2h)) {
    poison_against_pattern(host.data(), n, seed);
    m.copy_ms[{host.kind, Direction::d2h}].push_back(time_copy(host, device, n, Direction::d2h, reps, stream));
    m.bytes[{host.kind, Direction::d2h}].add(count_pattern_matches(host.data(), n, seed), n);
  }
}

// Both directions at once from pinned memory, on two streams forked from `stream`: the upload
// from `pinned` (the sweep's), the download into a buffer of its own.
void measure_bidirectional(Measurements& m, const RunContext& ctx, const HostMemory& pinned,
                           DeviceBuffer<unsigned char>& device, std::vector<unsigned char>& readback,
                           const Stream& stream) {
  const std::uint64_t n = m.probe;
  unsigned char* up = pinned.data();
  PinnedBuffer<unsigned char> down(n);
  DeviceBuffer<unsigned char> device_src(n);
  constexpr std::uint32_t kUpSeed = 101, kDownSeed = 102;
  fill_pattern(up, n, kUpSeed);
  fill_pattern(down.data(), n, kDownSeed);
  CUDALAB_CUDA_CHECK(cudaMemcpy(device_src.data(), down.data(), n, cudaMemcpyHostToDevice));
  poison_against_pattern(down.data(), n, kDownSeed);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(device.data(), 0xFF, n, stream));  // in order with the copies
  const ForkJoin lanes(2);
  auto enqueue_both = [&](cudaStream_t s) {
    lanes.fork(s);
    copy_async(Direction::h2d, up, device.data(), n, lanes.worker(0));
    copy_async(Direction::d2h, down.data(), device_src.data(), n, lanes.worker(1));
    lanes.join(s);
  };
  m.bidirectional_ms = time_on_stream(stream, ctx.reps, enqueue_both, Launch::behind_latch);
  stream.synchronize();
  CUDALAB_CUDA_CHECK(cudaMemcpy(readback.data(), device.data(), n, cudaMemcpyDeviceToHost));
  m.bidirectional_bytes.add(count_pattern_matches(readback.data(), n, kUpSeed), n);
  m.bidirectional_bytes.add(count_pattern_matches(down.data(), n, kDownSeed), n);
  if (ctx.tracing()) {  // after the check: the traced run rewrites the buffers
    traced_run(m.timelines,
               msg("both directions at once: {up} up and {down} down, pinned", arg("up", format_bytes(n)),
                   arg("down", format_bytes(n))),
               {{lanes.worker(0), "upload (H2D)"}, {lanes.worker(1), "download (D2H)"}},
               [&](TraceSession&) { enqueue_both(stream); });
  }
}

// The lane of a kind of host memory.
const char* lane_name_of(MemoryKind k) {
  if (k == MemoryKind::pageable) return "pageable memory";
  return k == MemoryKind::pinned ? "pinned memory" : "registered memory";
}

// The picture: one copy per memory kind, each kind on its own lane, one after another.
void trace_kinds(Measurements& m, DeviceBuffer<unsigned char>& device) {
  std::vector<std::unique_ptr<HostMemory>> hosts;
  std::vector<Stream> streams(m.kinds.size());
  std::vector<NamedLane> lanes;
  for (std::size_t k = 0; k < m.kinds.size(); ++k) {
    hosts.push_back(std::make_unique<HostMemory>(m.kinds[k], m.probe));
    lanes.push_back({streams[k].get(), lane_name_of(m.kinds[k])});
  }
  std::string what;  // "H2D + D2H": data
  for (Direction d : m.directions) what += what.empty() ? label_of(d) : std::string(" + ") + label_of(d);
  traced_run(m.timelines,
             msg("{directions} of {size} from each kind of host memory, one after another", arg("directions", what),
                 arg("size", format_bytes(m.probe))),
             lanes, [&](TraceSession&) {
               for (std::size_t k = 0; k < m.kinds.size(); ++k) {
                 for (Direction d : m.directions) copy_async(d, hosts[k]->data(), device.data(), m.probe, streams[k]);
                 streams[k].synchronize();  // the next kind starts on an idle bus
               }
             });
}

// How long cudaMemcpyAsync keeps the host at the probe size, per direction, from the memory of
// one kind (the sweep's: the probe fits in it).
void measure_async_calls(Measurements& m, const HostMemory& host, DeviceBuffer<unsigned char>& device,
                         const Stream& stream) {
  for (Direction d : m.directions) {
    m.async_call_us[{host.kind, d}] = repeat(kAsyncCallReps, [&] {
      const auto start = std::chrono::steady_clock::now();
      copy_async(d, host.data(), device.data(), m.probe, stream);
      const double returned_after_us = host_us_since(start);
      stream.synchronize();
      return returned_after_us;
    });
  }
}

AllocationCosts measure_allocation(std::uint64_t n) {
  AllocationCosts c;
  c.malloc_touch_ms = repeat(kAllocationReps, [&] {
    const auto start = std::chrono::steady_clock::now();
    const MallocBuffer b = malloc_bytes(n);
    std::memset(b.get(), 0, n);  // malloc alone only reserves addresses; the pages come on first touch
    return host_ms_since(start);
  });
  c.pinned_ms = repeat(kAllocationReps, [&] {
    const auto start = std::chrono::steady_clock::now();
    const PinnedBuffer<unsigned char> b(n);
    return host_ms_since(start);
  });
  const MallocBuffer to_register = malloc_bytes(n);
  std::memset(to_register.get(), 0, n);
  c.register_ms = repeat(kAllocationReps, [&] {
    const auto start = std::chrono::steady_clock::now();
    const HostRegistration reg(to_register.get(), n);
    return host_ms_since(start);
  });
  return c;
}

// The headline, pinned H2D at the probe size, is timed in three separate bursts: in the pinned
// sweep, after the last sweep, and at the end, after the allocations. A passing slowdown of a
// shared server's bus then moves one burst, not the median of all three (on the lab H100 one lone
// run read 46.5 GB/s for all ten samples of its one burst, between 54.7 at 16 MiB and 55.1 at
// 256 MiB).
void add_headline_burst(Measurements& m, const RunContext& ctx, const HostMemory* pinned,
                        DeviceBuffer<unsigned char>& device, const Stream& stream) {
  const auto probe = std::find(m.sizes.begin(), m.sizes.end(), m.probe);
  const bool h2d = std::find(m.directions.begin(), m.directions.end(), Direction::h2d) != m.directions.end();
  if (pinned == nullptr || !h2d || probe == m.sizes.end()) return;
  const auto burst = time_headline_block(m, *pinned, device, reps_for(m.probe, ctx.reps), stream);
  auto& samples = m.copy_ms[{MemoryKind::pinned, Direction::h2d}].at(static_cast<std::size_t>(probe - m.sizes.begin()));
  samples.insert(samples.end(), burst.begin(), burst.end());
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m;
  m.sizes = sweep_sizes(p.size, p.full);
  m.probe = probe_size(m.sizes);
  for (MemoryKind k : {MemoryKind::pageable, MemoryKind::pinned, MemoryKind::registered}) {
    if (p.memory == "all" || p.memory == name_of(k)) m.kinds.push_back(k);
  }
  if (p.direction != "d2h") m.directions.push_back(Direction::h2d);
  if (p.direction != "h2d") m.directions.push_back(Direction::d2h);
  const bool both_directions = m.directions.size() == 2;
  const std::uint64_t largest = m.sizes.back();
  require_device_memory("--size " + format_bytes(p.size),
                        largest + (both_directions && m.uses(MemoryKind::pinned) ? m.probe : 0),
                        Message("the largest transfer's device buffer"));
  m.pcie = query_device(ctx.device).pcie;

  const Stream stream;
  DeviceBuffer<unsigned char> device(largest);
  std::vector<unsigned char> readback(largest);
  // Each kind's memory serves its sweep and then its asynchronous calls; the pinned memory is
  // kept for the headline's later bursts and the upload of both directions at once, so no
  // probe-sized buffer is pinned again inside the turn.
  std::unique_ptr<HostMemory> pinned;
  for (MemoryKind kind : m.kinds) {
    std::unique_ptr<HostMemory> host;
    {
      const Phase phase(fmt::format("sweep {}", name_of(kind)));
      host = std::make_unique<HostMemory>(kind, largest);
      for (std::size_t si = 0; si < m.sizes.size(); ++si) sweep_one_size(m, *host, si, ctx, device, readback, stream);
    }
    in_phase(fmt::format("async calls {}", name_of(kind)), [&] { measure_async_calls(m, *host, device, stream); });
    if (kind == MemoryKind::pinned) pinned = std::move(host);
  }
  in_phase("headline burst", [&] { add_headline_burst(m, ctx, pinned.get(), device, stream); });
  if (both_directions && pinned) {
    in_phase("bidirectional", [&] { measure_bidirectional(m, ctx, *pinned, device, readback, stream); });
  }
  if (ctx.tracing()) in_phase("trace", [&] { trace_kinds(m, device); });
  if (m.uses(MemoryKind::pinned) || m.uses(MemoryKind::registered)) {
    m.allocation = in_phase("allocation", [&] { return measure_allocation(m.probe); });
  }
  // Last, after the allocations: the three bursts stay apart in time.
  in_phase("headline burst", [&] { add_headline_burst(m, ctx, pinned.get(), device, stream); });
  return m;
}

}  // namespace cudalab::pinned
