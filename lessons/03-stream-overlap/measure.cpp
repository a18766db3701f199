// Lesson 03's experiment: a buffer goes host -> device -> kernel -> host, in one stream, then in
// chunks over several streams (depth- and breadth-first issue order), from pageable memory, and
// with a transfer stream plus a compute stream joined by events (with and without the waits).
// With --full the lecture's own program is replayed last (lecture_replica.cpp). Every variant is
// verified.
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

#include <fmt/format.h>

#include "chunking.hpp"
#include "common/core/host_pattern.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/streams.hpp"
#include "common/gpu/timing.hpp"
#include "common/model/engine_model.hpp"
#include "common/core/text_format.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "model.hpp"

namespace cudalab::stream_overlap {

namespace {

constexpr std::uint32_t kInputSeed = 3;
constexpr int kCalibrationLowIters = 16;
constexpr int kCalibrationHighIters = 256;

// Everything one pipeline runs on: host buffers of both kinds, the device buffer (one region per
// chunk, so streams never share memory), two double-buffer slots, and its streams and events.
struct Rig {
  std::size_t bytes;
  std::vector<Chunk> chunks;
  std::size_t slot_bytes;
  PinnedBuffer<std::uint8_t> pinned_in, pinned_out;
  std::vector<std::uint8_t> pageable_in, pageable_out;
  DeviceBuffer<std::uint8_t> device, slots;
  ForkJoin workers;
  ForkJoin pair;  // worker 0: transfer, worker 1: compute
  std::vector<Event> uploaded, computed;
  Event kernels_done{cudaEventDisableTiming};
  int iters = 0;
  std::vector<std::uint8_t> expected;  // the CPU's answer for every byte, once iters is known

  Rig(std::size_t n, int chunk_count, int streams)
      : bytes(n), chunks(split_into_chunks(n, chunk_count)), slot_bytes(chunks.front().count), pinned_in(n),
        pinned_out(n), pageable_in(n), pageable_out(n), device(n), slots(2 * slot_bytes), workers(streams), pair(2) {
    fill_pattern(pinned_in.data(), n, kInputSeed);
    std::memcpy(pageable_in.data(), pinned_in.data(), n);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      uploaded.emplace_back(cudaEventDisableTiming);
      computed.emplace_back(cudaEventDisableTiming);
    }
  }
  // The kernel maps each byte through a table (kernels.hpp), so the answer is computed once and
  // each verified run compares whole words against it. Looked up byte by byte for each of the six
  // verified runs, it held the GPU turn ~0.15 s a run on the lab machine (the missing-wait
  // variant, which is only verified, took 0.18 s).
  void set_iters(int kernel_iters) {
    iters = kernel_iters;
    std::uint8_t table[256];
    affine_steps_table(iters, table);
    expected.resize(bytes);
    for (std::size_t b = 0; b < bytes; ++b) expected[b] = table[pinned_in[b]];
  }
  const std::uint8_t* in(Variant v) const { return uses_pageable_memory(v) ? pageable_in.data() : pinned_in.data(); }
  std::uint8_t* out(Variant v) { return uses_pageable_memory(v) ? pageable_out.data() : pinned_out.data(); }
  cudaStream_t stream_of(std::size_t chunk) const {
    return workers.worker(static_cast<int>(chunk % static_cast<std::size_t>(workers.count()))).get();
  }
};

// Chunk c of the host buffer to or from `device_chunk`, the device memory that holds it.
void upload(const std::uint8_t* host, std::uint8_t* device_chunk, const Chunk& c, cudaStream_t s) {
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device_chunk, host + c.offset, c.count, cudaMemcpyHostToDevice, s));
}
void download(std::uint8_t* host, const std::uint8_t* device_chunk, const Chunk& c, cudaStream_t s) {
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host + c.offset, device_chunk, c.count, cudaMemcpyDeviceToHost, s));
}
void compute(Rig& r, const Chunk& c, cudaStream_t s) {
  launch_affine_steps(r.device.data() + c.offset, c.count, r.iters, s);
}

void enqueue_depth_first(Rig& r, Variant v, cudaStream_t s) {
  r.workers.fork(s);
  for (std::size_t c = 0; c < r.chunks.size(); ++c) {
    upload(r.in(v), r.device.data() + r.chunks[c].offset, r.chunks[c], r.stream_of(c));
    compute(r, r.chunks[c], r.stream_of(c));
    download(r.out(v), r.device.data() + r.chunks[c].offset, r.chunks[c], r.stream_of(c));
  }
  r.workers.join(s);
}

void enqueue_breadth_first(Rig& r, Variant v, cudaStream_t s) {
  r.workers.fork(s);
  for (std::size_t c = 0; c < r.chunks.size(); ++c) upload(r.in(v), r.device.data() + r.chunks[c].offset, r.chunks[c], r.stream_of(c));
  for (std::size_t c = 0; c < r.chunks.size(); ++c) compute(r, r.chunks[c], r.stream_of(c));
  for (std::size_t c = 0; c < r.chunks.size(); ++c) download(r.out(v), r.device.data() + r.chunks[c].offset, r.chunks[c], r.stream_of(c));
  r.workers.join(s);
}

// Double buffering: one transfer stream carries both directions, one compute stream runs the
// kernels; events hand each chunk over. Chunk c lives in slot c % 2, and the transfer stream's
// order (H2D c+2 after D2H c) keeps a slot from being refilled early.
void enqueue_transfer_compute(Rig& r, Variant v, cudaStream_t s) {
  const cudaStream_t transfer = r.pair.worker(0).get();
  const cudaStream_t compute_stream = r.pair.worker(1).get();
  auto slot = [&](std::size_t c) { return r.slots.data() + (c % 2) * r.slot_bytes; };
  auto put = [&](std::size_t c) {
    upload(r.in(v), slot(c), r.chunks[c], transfer);
    r.uploaded[c].record(transfer);
  };
  r.pair.fork(s);
  put(0);
  for (std::size_t c = 0; c < r.chunks.size(); ++c) {
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(compute_stream, r.uploaded[c].get(), 0));
    launch_affine_steps(slot(c), r.chunks[c].count, r.iters, compute_stream);
    r.computed[c].record(compute_stream);
    if (c + 1 < r.chunks.size()) put(c + 1);
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(transfer, r.computed[c].get(), 0));
    download(r.out(v), slot(c), r.chunks[c], transfer);
  }
  r.pair.join(s);
}

// Lecture 002's program, in its transfer + compute demo, calls cudaStreamWaitEvent(computeStream, 0, 0): it waits
// on no event, so nothing orders a kernel after its upload, nor a download after its kernel.
// CUDA may then run the kernels first. To show that outcome every run rather than by chance (and
// with no two engines touching the same bytes at once), this variant issues that legal order
// on purpose: the kernels run on the poisoned device memory, then the copies move the input up
// and straight back down.
void enqueue_missing_wait(Rig& r, Variant v, cudaStream_t s) {
  const cudaStream_t transfer = r.pair.worker(0).get();
  const cudaStream_t compute_stream = r.pair.worker(1).get();
  r.pair.fork(s);
  for (const Chunk& c : r.chunks) compute(r, c, compute_stream);
  r.kernels_done.record(compute_stream);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(transfer, r.kernels_done.get(), 0));
  for (const Chunk& c : r.chunks) {
    upload(r.in(v), r.device.data() + c.offset, c, transfer);
    download(r.out(v), r.device.data() + c.offset, c, transfer);
  }
  r.pair.join(s);
}

void enqueue(Rig& r, Variant v, cudaStream_t s) {
  switch (v) {
    case Variant::sequential: {
      const Chunk whole{0, r.bytes};
      upload(r.in(v), r.device.data(), whole, s);
      compute(r, whole, s);
      download(r.out(v), r.device.data(), whole, s);
      return;
    }
    case Variant::depth_first:
    case Variant::pageable:
      return enqueue_depth_first(r, v, s);
    case Variant::breadth_first:
      return enqueue_breadth_first(r, v, s);
    case Variant::transfer_compute:
      return enqueue_transfer_compute(r, v, s);
    case Variant::missing_wait:
      return enqueue_missing_wait(r, v, s);
  }
}

// One run on poisoned buffers, every output byte checked against the CPU's answer.
Tally run_verified(Rig& r, Variant v, const Stream& origin) {
  std::uint8_t* out = r.out(v);
  // The complement of the right answer, so no unwritten byte can pass.
  poison_against(out, r.expected.data(), r.bytes);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(r.device.data(), 0xFF, r.bytes, origin));
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(r.slots.data(), 0xFF, r.slots.bytes(), origin));
  enqueue(r, v, origin);
  origin.synchronize();
  Tally t;
  t.add(count_matches(out, r.expected.data(), r.bytes), r.bytes);
  return t;
}

// The pageable variant's run takes ~14 ms on the lab H100, seven times the pinned one's, and no
// headline reads it: a third of the timed runs (10 of the default 30) and one warm-up keep its
// median for its check and save ~0.4 s of the GPU turn.
constexpr int kPageableShare = 3;
Repetitions reps_for(Variant v, Repetitions reps) {
  if (v == Variant::pageable) {
    reps.repeat = std::max(1, reps.repeat / kPageableShare);
    reps.warmup = std::min(reps.warmup, 1);
  }
  return reps;
}

VariantRun time_and_verify(Rig& r, Variant v, const RunContext& ctx, const Stream& origin) {
  VariantRun run;
  if (v != Variant::missing_wait) {
    run.ms = time_on_stream(origin, reps_for(v, ctx.reps), [&](cudaStream_t s) { enqueue(r, v, s); });
  }
  run.bytes = run_verified(r, v, origin);
  return run;
}

std::vector<double> time_stage(const Stream& origin, const RunContext& ctx,
                               const std::function<void(cudaStream_t)>& enqueue_stage) {
  return time_on_stream(origin, ctx.reps, enqueue_stage);
}

void measure_stages(Rig& r, Measurements& m, const RunContext& ctx, const Stream& origin) {
  const std::size_t n = r.slot_bytes;
  auto copy = [&](void* dst, const void* src, cudaMemcpyKind kind) {
    return time_stage(origin, ctx, [&](cudaStream_t s) { CUDALAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, kind, s)); });
  };
  m.h2d_pinned = copy(r.device.data(), r.pinned_in.data(), cudaMemcpyHostToDevice);
  m.d2h_pinned = copy(r.pinned_out.data(), r.device.data(), cudaMemcpyDeviceToHost);
  m.h2d_pageable = copy(r.device.data(), r.pageable_in.data(), cudaMemcpyHostToDevice);
  m.d2h_pageable = copy(r.pageable_out.data(), r.device.data(), cudaMemcpyDeviceToHost);
}

std::vector<double> kernel_samples(Rig& r, int iters, const RunContext& ctx, const Stream& origin) {
  return time_stage(origin, ctx, [&](cudaStream_t s) { launch_affine_steps(r.device.data(), r.slot_bytes, iters, s); });
}

// The iteration count whose kernel takes one chunk's copy time: the line through two timings.
int calibrate_iters(Rig& r, Measurements& m, const RunContext& ctx, const Stream& origin) {
  Calibration c;
  c.low_iters = kCalibrationLowIters;
  c.high_iters = kCalibrationHighIters;
  c.copy_ms = std::max(median_of(m.h2d_pinned), median_of(m.d2h_pinned));
  c.low_ms = median_of(kernel_samples(r, c.low_iters, ctx, origin));
  c.high_ms = median_of(kernel_samples(r, c.high_iters, ctx, origin));
  const double ms_per_iter = (c.high_ms - c.low_ms) / (c.high_iters - c.low_iters);
  const double solved =
      ms_per_iter > 0 ? c.low_iters + (c.copy_ms - c.low_ms) / ms_per_iter : static_cast<double>(c.high_iters);
  m.calibration = c;
  return static_cast<int>(std::clamp(std::lround(solved), 1L, static_cast<long>(kMaxKernelIters)));
}

// --full: the depth-first pipeline at each stream count of the sweep, two chunks per stream, each
// point on a rig of its own with its own stages (the chunks shrink as the streams grow) and the
// host's enqueue time beside the GPU's; every point verified once.
std::vector<SweepPoint> measure_stream_sweep(const Params& p, const Measurements& m, const RunContext& ctx,
                                             const Stream& origin) {
  std::vector<SweepPoint> sweep;
  for (const int streams : kSweepStreams) {
    const int chunks = std::min<std::uint64_t>(2ull * streams, p.size);
    Rig rig(p.size, chunks, streams);
    rig.set_iters(m.iters);
    SweepPoint point;
    point.streams = streams;
    point.chunks = chunks;
    point.chunk_bytes = rig.slot_bytes;
    Measurements stages;
    measure_stages(rig, stages, ctx, origin);
    point.h2d = stages.h2d_pinned;
    point.d2h = stages.d2h_pinned;
    point.kernel = kernel_samples(rig, m.iters, ctx, origin);
    point.ms = time_on_stream(origin, ctx.reps, [&](cudaStream_t s) { enqueue(rig, Variant::depth_first, s); });
    point.enqueue_ms = repeat(ctx.reps, [&] {
      const auto start = std::chrono::steady_clock::now();
      enqueue(rig, Variant::depth_first, origin);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      origin.synchronize();
      return ms;
    });
    point.bytes = run_verified(rig, Variant::depth_first, origin);
    sweep.push_back(std::move(point));
  }
  return sweep;
}

// Each variant once more, untimed, for its picture; and the lanes' busy time for the check
// that the trace agrees with the timed runs.
void trace_variants(Rig& r, const Params& p, Measurements& m, const Stream& origin) {
  auto trace = [&](Variant v, const Message& title, const std::vector<NamedLane>& lanes) {
    return traced_run(m.timelines, title, lanes, [&](TraceSession&) { enqueue(r, v, origin); });
  };
  std::vector<NamedLane> worker_lanes;
  for (int w = 0; w < r.workers.count(); ++w) {
    worker_lanes.push_back({r.workers.worker(w), msg("stream {id}", arg("id", w))});
  }
  const auto sequential = trace(Variant::sequential, "sequential: one stream, the whole buffer", {{origin, "one stream"}});
  std::optional<Timeline> depth;
  if (p.memory != "pageable") {
    depth = trace(Variant::depth_first,
                  msg("depth-first, pinned: {chunks} chunks over {streams} streams (chunk c on stream c mod "
                      "{streams})",
                      arg("chunks", m.chunk_count), arg("streams", p.streams)),
                  worker_lanes);
  }
  if (p.memory != "pinned") {
    trace(Variant::pageable, "depth-first from pageable memory: the same streams, no staircase", worker_lanes);
  }
  trace(Variant::transfer_compute, "transfer stream + compute stream, handing chunks over by events",
        {{r.pair.worker(0), "transfer"}, {r.pair.worker(1), "compute"}});
  if (sequential && depth) {
    m.traced_sequential_busy_ms = device_busy_ms(*sequential, "one stream");
    for (const auto& lane : worker_lanes) m.traced_depth_lane_busy_ms.push_back(device_busy_ms(*depth, lane.name));
  }
}

}  // namespace

int hardware_queues_from_env(bool* from_env) {
  *from_env = false;
  const char* value = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (value == nullptr) return kDefaultHardwareQueues;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || n < 1 || n > 32) return kDefaultHardwareQueues;
  *from_env = true;
  return static_cast<int>(n);
}

namespace {

// What a run knows before it measures: the chunks, the copy engines, the hardware queues, and
// whether the device has room for it.
Measurements prepare(const Params& p, const RunContext& ctx) {
  Measurements m;
  m.chunk_count = chunk_count(p);
  if (m.chunk_count < p.streams) {
    throw UsageError(msg("--chunks {chunks} is fewer than --streams {streams}; use at least one chunk per stream",
                         arg("chunks", m.chunk_count), arg("streams", p.streams)));
  }
  m.copy_engines = query_device(ctx.device).async_engine_count;
  m.hardware_queues = hardware_queues_from_env(&m.queues_from_env);
  const std::vector<Chunk> chunks = split_into_chunks(p.size, m.chunk_count);
  m.largest_chunk = chunks.front().count;
  m.smallest_chunk = chunks.back().count;
  require_device_memory("--size " + format_bytes(p.size), p.size + 2 * m.largest_chunk + kLectureDeviceBytes,
                        Message("the data, two double-buffer chunks and the lecture program's buffers"));
  return m;
}

// The stages, the kernel's iterations and the headline pair, sequential against depth-first: what
// every run of the lesson measures first, and all that an exercise run needs of the lab's own.
void measure_headline(const Params& p, const RunContext& ctx, Rig& rig, Measurements& m, const Stream& origin) {
  // The stages, the line through two kernel timings (unless --kernel-iters gives the count), and
  // the kernel at that count; `pass` names the phases of a second go.
  const auto stages_and_kernel = [&](const std::string& pass) {
    in_phase("stages" + pass, [&] { measure_stages(rig, m, ctx, origin); });
    m.iters = p.kernel_iters != 0 ? p.kernel_iters
                                  : in_phase("calibrate" + pass, [&] { return calibrate_iters(rig, m, ctx, origin); });
    rig.set_iters(m.iters);
    m.kernel = in_phase("kernel" + pass, [&] { return kernel_samples(rig, m.iters, ctx, origin); });
  };
  stages_and_kernel("");
  if (m.calibration && calibration_missed(median_of(m.kernel), m.calibration->copy_ms)) {
    // Once more, a second later; the run says so (report.cpp).
    const Calibration::Missed missed{median_of(m.kernel), m.calibration->copy_ms};
    stages_and_kernel(" again");
    m.calibration->missed = missed;
  }

  // The headline pair in turns (timing.hpp, time_pairs_on_stream): on a shared server the
  // machine drifts over seconds, and a drift must not land on one side of the speed-up only.
  const PairedSamples pairs = in_phase("headline pairs", [&] { return time_pairs_on_stream(
      origin, ctx.reps, [&](cudaStream_t s) { enqueue(rig, Variant::sequential, s); },
      [&](cudaStream_t s) { enqueue(rig, Variant::depth_first, s); }); });
  m.depth_first_speedups = pairs.ratios();
  m.pair_blocks_set_aside = pairs.blocks_set_aside;
  m.set_aside_speedups = pairs.set_aside_ratios;
  m.runs[Variant::sequential] = VariantRun{pairs.a_ms, run_verified(rig, Variant::sequential, origin)};
  m.runs[Variant::depth_first] = VariantRun{pairs.b_ms, run_verified(rig, Variant::depth_first, origin)};
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m = prepare(p, ctx);
  const Stream origin;
  Rig rig(p.size, m.chunk_count, p.streams);
  measure_headline(p, ctx, rig, m, origin);
  for (Variant v : {Variant::breadth_first, Variant::pageable, Variant::transfer_compute, Variant::missing_wait}) {
    m.runs[v] = in_phase(fmt::format("variant {}", static_cast<int>(v)), [&] { return time_and_verify(rig, v, ctx, origin); });
  }
  // With --full, last of the timed work: its kernel has still never been launched, so its first
  // run is timed cold, as the lecture's program times it; and its long GPU-filling kernels come
  // after the headline pairs, not just before them.
  if (p.full) m.lecture = in_phase("lecture replica", [&] { return measure_lecture_replica(ctx); });
  if (p.full) m.stream_sweep = in_phase("stream sweep", [&] { return measure_stream_sweep(p, m, ctx, origin); });
  if (ctx.tracing()) in_phase("trace", [&] { trace_variants(rig, p, m, origin); });
  return m;
}

Measurements measure_yardstick(const Params& p, const RunContext& ctx) {
  Measurements m = prepare(p, ctx);
  const Stream origin;
  Rig rig(p.size, m.chunk_count, p.streams);
  measure_headline(p, ctx, rig, m, origin);
  return m;
}

}  // namespace cudalab::stream_overlap
