// Lesson 02: pinned vs pageable host memory. Copies a buffer host->device and back for three
// kinds of host memory over a size sweep, fits t(n) = latency + n / bandwidth per kind and
// direction, runs both directions at once, times how long cudaMemcpyAsync keeps the host, and
// what pinning costs. Every copied byte is checked.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "common/cuda/cuda_raii.hpp"
#include "common/cuda/device.hpp"
#include "common/bench/host_pattern.hpp"
#include "common/bench/lesson.hpp"
#include "common/bench/options.hpp"
#include "common/report/text_format.hpp"
#include "common/trace/traced_run.hpp"
#include "transfer_model.hpp"

namespace cudalab {

namespace {

constexpr std::uint64_t kSweepFirst = 4ull << 10;
constexpr std::uint64_t kSweepLast = 256ull << 20;
constexpr std::uint64_t kProbeSize = 64ull << 20;  // host-blocking, both-directions and pinning probes
// Big copies need fewer repeats for a steady median; this keeps the default run to seconds.
constexpr std::uint64_t kFullRepeatsUpTo = 16ull << 20;
constexpr int kMinRepeats = 5;

enum class MemoryKind { pageable, pinned, registered };
const char* name_of(MemoryKind k) {
  return k == MemoryKind::pageable ? "pageable" : k == MemoryKind::pinned ? "pinned" : "registered";
}

enum class Direction { h2d, d2h };
const char* name_of(Direction d) { return d == Direction::h2d ? "h2d" : "d2h"; }
const char* label_of(Direction d) { return d == Direction::h2d ? "H2D" : "D2H"; }

double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using MallocBuffer = std::unique_ptr<unsigned char, FreeDeleter>;
MallocBuffer malloc_bytes(std::size_t bytes) {
  auto* p = static_cast<unsigned char*>(std::malloc(bytes));
  if (p == nullptr) throw RuntimeError(fmt::format("malloc of {} bytes failed", bytes));
  return MallocBuffer(p);
}

// One kind of host memory of `bytes`, kept for the whole sweep.
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

// One copy of `bytes` between host and device memory in direction `d`, queued on `stream`.
void copy_async(Direction d, unsigned char* host, unsigned char* device, std::size_t bytes, cudaStream_t stream) {
  if (d == Direction::h2d) {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  } else {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream));
  }
}

struct Tally {
  std::size_t matched = 0;
  std::size_t total = 0;
};

class PinnedVsPageable final : public Lesson {
 public:
  void add_options(CLI::App& app) override {
    // 2GiB at most: bandwidth is flat from ~16MiB on, and each size is pinned, filled and checked
    // for three kinds of host memory (16GiB took minutes on the lab machine).
    add_size_option(app, "--size", size_, 0, 2ull << 30, "one transfer size instead of the sweep (0: sweep 4KiB..256MiB)");
    add_choice_option(app, "--direction", direction_, {"h2d", "d2h", "both"}, "copy direction(s)");
    add_choice_option(app, "--memory", memory_, {"all", "pageable", "pinned", "registered"}, "host memory kind(s)");
  }
  Repetitions default_repetitions() const override { return {2, 20}; }

  Report run(const RunContext& ctx) override {
    const DeviceInfo dev = query_device(ctx.device);
    std::vector<std::uint64_t> sizes;
    if (size_ != 0) {
      sizes.push_back(size_);
    } else {
      for (std::uint64_t n = kSweepFirst; n <= kSweepLast; n *= 4) sizes.push_back(n);
    }
    const std::uint64_t largest = sizes.back();
    // The probes run at 64 MiB, or at the largest size measured when that is smaller.
    std::uint64_t probe = sizes.front();
    for (auto n : sizes) {
      if (n <= kProbeSize) probe = n;
    }
    std::vector<MemoryKind> kinds;
    for (MemoryKind k : {MemoryKind::pageable, MemoryKind::pinned, MemoryKind::registered}) {
      if (memory_ == "all" || memory_ == name_of(k)) kinds.push_back(k);
    }
    std::vector<Direction> directions;
    if (direction_ != "d2h") directions.push_back(Direction::h2d);
    if (direction_ != "h2d") directions.push_back(Direction::d2h);
    const bool both_directions = directions.size() == 2;
    auto uses = [&](MemoryKind k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); };

    const std::uint64_t device_needed = largest + (both_directions && uses(MemoryKind::pinned) ? probe : 0);
    require_device_memory("--size " + format_bytes(size_), device_needed, "the largest transfer's device buffer");

    Report r;
    r.params = {Param{"size", size_ == 0 ? "sweep" : format_bytes(size_), true}, Param{"direction", direction_, true},
                Param{"memory", memory_, true}};
    r.devices.push_back(summary_of(dev));

    Stream stream;
    DeviceBuffer<unsigned char> device(largest);
    std::vector<unsigned char> readback(largest);
    // medians[kind][direction][size index], in ms
    std::map<std::pair<MemoryKind, Direction>, std::vector<double>> medians;
    std::map<std::pair<MemoryKind, Direction>, Tally> tallies;
    std::map<Direction, Section> sweep_sections;
    for (Direction d : directions) {
      Section& s = sweep_sections[d];
      s.key = std::string("bandwidth.") + name_of(d);
      s.title = fmt::format("{} bandwidth by size", label_of(d));
      s.notes_key = d == Direction::h2d ? "bandwidth" : "";
    }

    for (MemoryKind kind : kinds) {
      const HostMemory host(kind, largest);
      for (std::size_t si = 0; si < sizes.size(); ++si) {
        const std::uint64_t n = sizes[si];
        const auto seed = static_cast<std::uint32_t>(si + 1);
        Repetitions reps = ctx.reps;
        if (n > kFullRepeatsUpTo) {
          reps.repeat = std::max<int>(std::min(reps.repeat, kMinRepeats),
                                      static_cast<int>(reps.repeat * kFullRepeatsUpTo / n));
          reps.warmup = std::min(reps.warmup, 1);
        }
        auto time_copy = [&](void* dst, const void* src, cudaMemcpyKind k) {
          return time_on_stream(stream, reps, [&](cudaStream_t s) { CUDALAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, k, s)); });
        };
        auto record = [&](Direction d, std::vector<double> samples) {
          medians[{kind, d}].push_back(median_of(samples));
          Metric m;
          m.key = fmt::format("bw.{}.{}.{}", name_of(kind), name_of(d), format_bytes(n));
          m.label = fmt::format("{:>7} {}", format_bytes(n), name_of(kind));
          m.unit = "GB/s";
          for (double ms : samples) m.samples.push_back(gbps(static_cast<double>(n), ms));
          sweep_sections[d].metrics.push_back(std::move(m));
        };

        // H2D: the pattern goes up over a poisoned device buffer, and is read back to check it.
        fill_pattern(host.data(), n, seed);
        CUDALAB_CUDA_CHECK(cudaMemset(device.data(), 0xFF, n));
        if (both_directions || directions.front() == Direction::h2d) {
          record(Direction::h2d, time_copy(device.data(), host.data(), cudaMemcpyHostToDevice));
          CUDALAB_CUDA_CHECK(cudaMemcpy(readback.data(), device.data(), n, cudaMemcpyDeviceToHost));
          Tally& t = tallies[{kind, Direction::h2d}];
          t.matched += count_pattern_matches(readback.data(), n, seed);
          t.total += n;
        } else {
          CUDALAB_CUDA_CHECK(cudaMemcpy(device.data(), host.data(), n, cudaMemcpyHostToDevice));
        }
        // D2H: the device's copy comes back over poisoned host memory.
        if (both_directions || directions.front() == Direction::d2h) {
          poison_against_pattern(host.data(), n, seed);
          record(Direction::d2h, time_copy(host.data(), device.data(), cudaMemcpyDeviceToHost));
          Tally& t = tallies[{kind, Direction::d2h}];
          t.matched += count_pattern_matches(host.data(), n, seed);
          t.total += n;
        }
      }
    }
    for (Direction d : directions) r.sections.push_back(std::move(sweep_sections[d]));

    for (const auto& [key, t] : tallies) {
      r.checks.push_back(verify_check(
          fmt::format("{}.{}", name_of(key.first), name_of(key.second)), t.matched == t.total,
          fmt::format("{} {}: {} of {} bytes arrived intact over {} size{}", name_of(key.first), label_of(key.second),
                      format_count(t.matched), format_count(t.total), sizes.size(), sizes.size() == 1 ? "" : "s"),
          "a wrong byte means a copy was cut short, landed at the wrong place, or read memory being rewritten"));
    }

    auto probe_index = static_cast<std::size_t>(std::find(sizes.begin(), sizes.end(), probe) - sizes.begin());
    auto probe_ms = [&](MemoryKind k, Direction d) { return medians.at({k, d})[probe_index]; };

    // --- the model: t(n) = latency + n / bandwidth ---
    if (sizes.size() >= 2) {
      Section model;
      model.key = "model";
      model.title = "model: t(n) = latency + n / bandwidth";
      model.notes_key = "model";
      if (dev.pcie) {
        model.facts.push_back(Fact{"link", "PCIe link",
                                   fmt::format("Gen{} x{}: {:.1f} GB/s each way in theory", dev.pcie->max_generation,
                                               dev.pcie->max_width, dev.pcie->theoretical_gbps()),
                                   "after line encoding; packet headers and flow control take a further share", false});
      }
      for (const auto& [key, ms] : medians) {
        std::vector<double> bytes(sizes.begin(), sizes.end()), seconds;
        for (double m : ms) seconds.push_back(m * 1e-3);
        const TransferFit fit = fit_transfer_time(bytes, seconds);
        const std::string id = fmt::format("{}.{}", name_of(key.first), name_of(key.second));
        const std::string who = fmt::format("{} {}", name_of(key.first), label_of(key.second));
        std::string note;
        if (dev.pcie) note = fmt::format("{:.0f}% of the link", 100.0 * fit.bandwidth_Bps / 1e9 / dev.pcie->theoretical_gbps());
        model.metrics.push_back(single_value("fit." + id + ".bandwidth", who + " asymptotic bandwidth", "GB/s",
                                             fit.bandwidth_Bps / 1e9, note));
        model.metrics.push_back(single_value("fit." + id + ".latency", who + " latency", "us", fit.latency_s * 1e6));
        model.metrics.push_back(single_value("fit." + id + ".half_bandwidth", who + " half-bandwidth size", "KiB",
                                             fit.half_bandwidth_bytes() / 1024.0, "copies smaller than this are mostly latency"));
      }
      r.sections.push_back(std::move(model));
    }

    // --- both directions at once (pinned, two streams) ---
    if (both_directions && uses(MemoryKind::pinned)) {
      Section bidir;
      bidir.key = "bidirectional";
      bidir.title = fmt::format("both directions at once ({} pinned, two streams)", format_bytes(probe));
      bidir.notes_key = "bidirectional";
      PinnedBuffer<unsigned char> up(probe), down(probe);
      DeviceBuffer<unsigned char> device_src(probe);
      constexpr std::uint32_t kUpSeed = 101, kDownSeed = 102;
      fill_pattern(up.data(), probe, kUpSeed);
      fill_pattern(down.data(), probe, kDownSeed);
      CUDALAB_CUDA_CHECK(cudaMemcpy(device_src.data(), down.data(), probe, cudaMemcpyHostToDevice));
      poison_against_pattern(down.data(), probe, kDownSeed);
      CUDALAB_CUDA_CHECK(cudaMemset(device.data(), 0xFF, probe));
      Stream second;
      const Event forked(cudaEventDisableTiming), joined(cudaEventDisableTiming);
      auto enqueue_both = [&](cudaStream_t s) {
        forked.record(s);
        CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(second, forked.get(), 0));
        CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), up.data(), probe, cudaMemcpyHostToDevice, s));
        CUDALAB_CUDA_CHECK(cudaMemcpyAsync(down.data(), device_src.data(), probe, cudaMemcpyDeviceToHost, second));
        joined.record(second);
        CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(s, joined.get(), 0));
      };
      const auto samples = time_on_stream(stream, ctx.reps, enqueue_both);
      stream.synchronize();
      CUDALAB_CUDA_CHECK(cudaMemcpy(readback.data(), device.data(), probe, cudaMemcpyDeviceToHost));
      const std::size_t matched =
          count_pattern_matches(readback.data(), probe, kUpSeed) + count_pattern_matches(down.data(), probe, kDownSeed);
      r.checks.push_back(verify_check("bidirectional", matched == 2 * probe,
                                      fmt::format("both directions at once: {} of {} bytes arrived intact",
                                                  format_count(matched), format_count(2 * probe))));
      Metric aggregate;
      aggregate.key = "bidirectional.aggregate";
      aggregate.label = "aggregate H2D + D2H";
      aggregate.unit = "GB/s";
      for (double ms : samples) aggregate.samples.push_back(gbps(2.0 * probe, ms));
      const double one_way_sum = gbps(probe, probe_ms(MemoryKind::pinned, Direction::h2d)) +
                                 gbps(probe, probe_ms(MemoryKind::pinned, Direction::d2h));
      aggregate.note = fmt::format("{:.2f}× one direction alone; {:.0f}% of H2D + D2H measured apart",
                                   median_of(aggregate.samples) / gbps(probe, probe_ms(MemoryKind::pinned, Direction::h2d)),
                                   100.0 * median_of(aggregate.samples) / one_way_sum);
      bidir.metrics.push_back(std::move(aggregate));
      r.sections.push_back(std::move(bidir));
      if (ctx.tracing()) {  // after the check: the traced run rewrites the buffers
        traced_run(r.timelines, fmt::format("both directions at once: {} up and {} down, pinned", format_bytes(probe),
                                            format_bytes(probe)),
                   {{stream, "upload (H2D)"}, {second.get(), "download (D2H)"}},
                   [&](TraceSession&) { enqueue_both(stream); });
      }
    }

    // --- the picture: one copy per memory kind, each kind on its own lane, one after another ---
    if (ctx.tracing()) {
      std::vector<std::unique_ptr<HostMemory>> hosts;
      std::vector<Stream> lanes_streams(kinds.size());
      std::vector<NamedLane> lanes;
      for (std::size_t k = 0; k < kinds.size(); ++k) {
        hosts.push_back(std::make_unique<HostMemory>(kinds[k], probe));
        lanes.push_back({lanes_streams[k].get(), fmt::format("{} memory", name_of(kinds[k]))});
      }
      std::string what;
      for (Direction d : directions) what += what.empty() ? label_of(d) : std::string(" + ") + label_of(d);
      traced_run(r.timelines, fmt::format("{} of {} from each kind of host memory, one after another", what,
                                          format_bytes(probe)),
                 lanes, [&](TraceSession&) {
                   for (std::size_t k = 0; k < kinds.size(); ++k) {
                     for (Direction d : directions) copy_async(d, hosts[k]->data(), device.data(), probe, lanes_streams[k]);
                     lanes_streams[k].synchronize();  // the next kind starts on an idle bus
                   }
                 });
    }

    // --- how long cudaMemcpyAsync keeps the host ---
    Section blocking;
    blocking.key = "host_blocking";
    blocking.title = fmt::format("host time inside cudaMemcpyAsync ({})", format_bytes(probe));
    blocking.notes_key = "host_blocking";
    std::map<std::pair<MemoryKind, Direction>, double> call_ms;
    for (MemoryKind kind : kinds) {
      const HostMemory host(kind, probe);
      for (Direction d : directions) {
        const auto samples = repeat(ctx.reps, [&] {
          const auto start = std::chrono::steady_clock::now();
          copy_async(d, host.data(), device.data(), probe, stream);
          const double returned_after = host_ms_since(start);
          stream.synchronize();
          return returned_after * 1e3;
        });
        call_ms[{kind, d}] = median_of(samples) * 1e-3;
        Metric m;
        m.key = fmt::format("async_call.{}.{}", name_of(kind), name_of(d));
        m.label = fmt::format("{} {} call returns after", name_of(kind), label_of(d));
        m.unit = "us";
        m.samples = samples;
        m.note = fmt::format("the copy itself takes {} ms", format_number(probe_ms(kind, d)));
        blocking.metrics.push_back(std::move(m));
      }
    }
    r.sections.push_back(std::move(blocking));

    // --- what pinning costs, and when it pays ---
    const bool compare = uses(MemoryKind::pinned) && uses(MemoryKind::pageable);
    if (uses(MemoryKind::pinned) || uses(MemoryKind::registered)) {
      Section cost;
      cost.key = "pinning_cost";
      cost.title = fmt::format("the cost of pinning {}", format_bytes(probe));
      cost.notes_key = "pinning_cost";
      const Repetitions alloc_reps{1, 5};
      const auto malloc_samples = repeat(alloc_reps, [&] {
        const auto start = std::chrono::steady_clock::now();
        const MallocBuffer b = malloc_bytes(probe);
        std::memset(b.get(), 0, probe);  // malloc alone only reserves addresses; the pages come on first touch
        return host_ms_since(start);
      });
      const auto pinned_samples = repeat(alloc_reps, [&] {
        const auto start = std::chrono::steady_clock::now();
        const PinnedBuffer<unsigned char> b(probe);
        return host_ms_since(start);
      });
      const MallocBuffer to_register = malloc_bytes(probe);
      std::memset(to_register.get(), 0, probe);
      const auto register_samples = repeat(alloc_reps, [&] {
        const auto start = std::chrono::steady_clock::now();
        const HostRegistration reg(to_register.get(), probe);
        return host_ms_since(start);
      });
      auto add = [&](std::string key, std::string label, std::vector<double> samples, std::string note = {}) {
        Metric m;
        m.key = std::move(key);
        m.label = std::move(label);
        m.unit = "ms";
        m.samples = std::move(samples);
        m.note = std::move(note);
        cost.metrics.push_back(std::move(m));
      };
      add("alloc.malloc", "malloc + first touch", malloc_samples);
      add("alloc.cudaMallocHost", "cudaMallocHost (+ cudaFreeHost)", pinned_samples, "includes the free: the pair is the cost");
      add("alloc.cudaHostRegister", "cudaHostRegister (+ unregister)", register_samples, "on memory already touched");
      if (compare) {
        const Direction d = directions.front();
        const double extra_ms = median_of(pinned_samples) - median_of(malloc_samples);
        const double transfers = break_even_transfers(extra_ms, probe_ms(MemoryKind::pageable, d), probe_ms(MemoryKind::pinned, d));
        cost.metrics.push_back(single_value(
            "alloc.break_even", fmt::format("{} copies before pinning pays ({})", label_of(d), format_bytes(probe)),
            "copies", transfers,
            fmt::format("each pinned copy saves {} ms; pinning costs {} ms more than malloc",
                        format_number(probe_ms(MemoryKind::pageable, d) - probe_ms(MemoryKind::pinned, d)),
                        format_number(extra_ms))));
      }
      r.sections.push_back(std::move(cost));
    }

    // --- what the lesson teaches ---
    if (compare) {
      for (Direction d : directions) {
        const double pinned_bw = gbps(probe, probe_ms(MemoryKind::pinned, d));
        const double pageable_bw = gbps(probe, probe_ms(MemoryKind::pageable, d));
        r.checks.push_back(expect_check(
            fmt::format("pinned_beats_pageable.{}", name_of(d)), pinned_bw > 1.2 * pageable_bw,
            fmt::format("{} at {}: pinned {:.1f} GB/s vs pageable {:.1f} GB/s ({:.1f}×)", label_of(d), format_bytes(probe),
                        pinned_bw, pageable_bw, pinned_bw / pageable_bw),
            "pageable copies are staged through a driver buffer by the CPU; a system with very fast host memory "
            "copies, or a copy too small to leave the latency regime, can narrow the gap"));
      }
      const Direction d = directions.front();
      const double pageable_call = call_ms.at({MemoryKind::pageable, d});
      const double pinned_call = call_ms.at({MemoryKind::pinned, d});
      r.checks.push_back(expect_check(
          "async_on_pageable_blocks_host", pageable_call > 0.5 * probe_ms(MemoryKind::pageable, d) &&
                                                       pageable_call > 10 * pinned_call,
          fmt::format("cudaMemcpyAsync {}: pinned returns after {} µs, pageable after {} µs", label_of(d),
                      format_number(pinned_call * 1e3), format_number(pageable_call * 1e3)),
          "with pageable memory the driver must copy the data into its staging buffer before the call returns"));
      r.headline = fmt::format("{} {}: pinned {:.1f} GB/s · pageable {:.1f} GB/s", label_of(d), format_bytes(probe),
                               gbps(probe, probe_ms(MemoryKind::pinned, d)),
                               gbps(probe, probe_ms(MemoryKind::pageable, d)));
    } else {
      r.headline = fmt::format("{} {} {}: {:.1f} GB/s", name_of(kinds.front()), label_of(directions.front()),
                               format_bytes(probe), gbps(probe, probe_ms(kinds.front(), directions.front())));
    }
    r.try_next = {
        {"cudalab pinned-vs-pageable --size 64MiB --direction h2d", "one size, one direction: the headline alone"},
        {"cudalab pinned-vs-pageable --memory registered", "pin memory you already have"},
        {"cudalab pinned-vs-pageable --size 4KiB", "tiny copies: latency, not bandwidth"},
        {"cudalab stream-overlap", "now put the copy engines to work beside kernels"},
    };
    return r;
  }

 private:
  std::uint64_t size_ = 0;
  std::string direction_ = "both";
  std::string memory_ = "all";
};

}  // namespace

std::unique_ptr<Lesson> make_pinned_vs_pageable() { return std::make_unique<PinnedVsPageable>(); }

}  // namespace cudalab
