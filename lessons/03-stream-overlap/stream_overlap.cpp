// Lesson 03: one stream vs many. A buffer goes host -> device -> kernel -> host, first in one
// stream, then split into chunks over several streams (depth-first and breadth-first issue
// order), from pageable memory, and with a dedicated transfer stream plus a compute stream
// joined by events. Every variant is timed, predicted by the engine model from per-chunk stage
// times measured in the same run, and verified byte for byte.
#include <algorithm>
#include <optional>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "affine_kernel.hpp"
#include "chunking.hpp"
#include "common/cuda/cuda_raii.hpp"
#include "common/cuda/device.hpp"
#include "common/model/engine_model.hpp"
#include "common/bench/host_pattern.hpp"
#include "common/bench/lesson.hpp"
#include "common/bench/options.hpp"
#include "common/report/text_format.hpp"
#include "common/trace/traced_run.hpp"

namespace cudalab {

namespace {

using stream_overlap::affine_steps_table;
using stream_overlap::launch_affine_steps;

constexpr std::uint32_t kInputSeed = 3;
// Calibration: the kernel is timed at two iteration counts and the line through both is solved
// for the count whose time equals one chunk's copy.
constexpr int kCalibrationLowIters = 16;
constexpr int kCalibrationHighIters = 256;
constexpr int kMaxKernelIters = 1000000;


// Host and device buffers of one run. The device buffer holds the whole data set (one region per
// chunk, so streams never share memory); the two slots are the double-buffering variant's
// ping-pong buffers.
struct Buffers {
  std::size_t bytes;
  std::size_t slot_bytes;
  PinnedBuffer<std::uint8_t> pinned_in, pinned_out;
  std::vector<std::uint8_t> pageable_in, pageable_out;
  DeviceBuffer<std::uint8_t> device, slots;

  Buffers(std::size_t n, std::size_t largest_chunk)
      : bytes(n), slot_bytes(largest_chunk), pinned_in(n), pinned_out(n), pageable_in(n), pageable_out(n),
        device(n), slots(2 * largest_chunk) {
    fill_pattern(pinned_in.data(), n, kInputSeed);
    std::memcpy(pageable_in.data(), pinned_in.data(), n);
  }
};

// Lets every stream in `to` start only after what `from` has issued so far.
void fork_streams(cudaStream_t from, const std::vector<cudaStream_t>& to, const Event& event) {
  event.record(from);
  for (cudaStream_t s : to) CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(s, event.get(), 0));
}

// Makes `into` wait for everything issued so far on each stream in `from` (one event each).
void join_streams(cudaStream_t into, const std::vector<cudaStream_t>& from, const std::vector<Event>& events) {
  for (std::size_t i = 0; i < from.size(); ++i) {
    events[i].record(from[i]);
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(into, events[i].get(), 0));
  }
}

enum class Variant { sequential, depth_first, breadth_first, pageable, transfer_compute };

struct VariantInfo {
  Variant variant;
  const char* key;
  const char* label;
};

class StreamOverlap final : public Lesson {
 public:
  void add_options(CLI::App& app) override {
    add_size_option(app, "--size", size_, 4096, 1ull << 40, "bytes pushed through the pipeline");
    add_int_option(app, "--streams", streams_, 1, 64, "streams the chunks are spread over");
    add_int_option(app, "--chunks", chunks_, 0, 1024,
                   "chunks the data is split into, at least --streams (0: two per stream)");
    add_int_option(app, "--kernel-iters", kernel_iters_, 0, kMaxKernelIters,
                   "multiply-adds per byte in the kernel (0: calibrate so one chunk's kernel takes as long as its copy)");
    add_choice_option(app, "--memory", memory_, {"both", "pinned", "pageable"},
                      "host memory of the overlapped run that --timeline draws (every variant is timed either way)");
  }
  Repetitions default_repetitions() const override { return {3, 30}; }

  Report run(const RunContext& ctx) override {
    const int chunk_count = chunks_ == 0 ? 2 * streams_ : chunks_;
    if (chunk_count < streams_) {
      throw UsageError(fmt::format("--chunks {} is fewer than --streams {}; use at least one chunk per stream",
                                   chunk_count, streams_));
    }
    const DeviceInfo dev = query_device(ctx.device);
    const std::vector<Chunk> chunks = split_into_chunks(size_, chunk_count);
    const std::size_t largest_chunk = chunks.front().count;
    require_device_memory("--size " + format_bytes(size_), size_ + 2 * largest_chunk,
                          "the data plus two double-buffer chunks");

    Buffers buf(size_, largest_chunk);
    Stream origin;
    std::vector<Stream> workers(static_cast<std::size_t>(streams_));
    Stream transfer, compute;

    // Per-chunk stage times: each stage alone on one stream, on the largest chunk.
    auto time_stage = [&](const std::function<void(cudaStream_t)>& enqueue) {
      return time_on_stream(origin, ctx.reps, enqueue);
    };
    auto copy_samples = [&](void* dst, const void* src, cudaMemcpyKind kind) {
      return time_stage([&](cudaStream_t s) { CUDALAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, largest_chunk, kind, s)); });
    };
    const auto h2d_pinned = copy_samples(buf.device.data(), buf.pinned_in.data(), cudaMemcpyHostToDevice);
    const auto d2h_pinned = copy_samples(buf.pinned_out.data(), buf.device.data(), cudaMemcpyDeviceToHost);
    const auto h2d_pageable = copy_samples(buf.device.data(), buf.pageable_in.data(), cudaMemcpyHostToDevice);
    const auto d2h_pageable = copy_samples(buf.pageable_out.data(), buf.device.data(), cudaMemcpyDeviceToHost);
    auto kernel_samples = [&](int iters) {
      return time_stage([&](cudaStream_t s) { launch_affine_steps(buf.device.data(), largest_chunk, iters, s); });
    };

    const double copy_ms = std::max(median_of(h2d_pinned), median_of(d2h_pinned));
    std::string iters_reason = "given with --kernel-iters";
    int iters = kernel_iters_;
    if (iters == 0) {
      const double low_ms = median_of(kernel_samples(kCalibrationLowIters));
      const double high_ms = median_of(kernel_samples(kCalibrationHighIters));
      const double ms_per_iter = (high_ms - low_ms) / (kCalibrationHighIters - kCalibrationLowIters);
      const double solved = ms_per_iter > 0 ? kCalibrationLowIters + (copy_ms - low_ms) / ms_per_iter
                                            : static_cast<double>(kCalibrationHighIters);
      iters = static_cast<int>(std::clamp(std::lround(solved), 1L, static_cast<long>(kMaxKernelIters)));
      iters_reason = fmt::format(
          "calibrated on this GPU: the kernel took {} ms at {} and {} ms at {} iterations on one chunk; the line "
          "through both reaches one chunk's copy time ({} ms) at {}",
          format_number(low_ms), kCalibrationLowIters, format_number(high_ms), kCalibrationHighIters,
          format_number(copy_ms), iters);
    }
    const auto kernel_stage = kernel_samples(iters);
    std::uint8_t table[256];
    affine_steps_table(iters, table);

    // --- the variants ---
    std::vector<cudaStream_t> worker_handles;
    for (const auto& w : workers) worker_handles.push_back(w.get());
    const std::vector<cudaStream_t> pair_handles{transfer.get(), compute.get()};
    const Event fork_event(cudaEventDisableTiming);
    std::vector<Event> join_events;
    for (int i = 0; i < std::max(streams_, 2); ++i) join_events.emplace_back(cudaEventDisableTiming);
    std::vector<Event> uploaded, computed;
    for (int i = 0; i < chunk_count; ++i) {
      uploaded.emplace_back(cudaEventDisableTiming);
      computed.emplace_back(cudaEventDisableTiming);
    }

    auto upload = [&](const std::uint8_t* host, const Chunk& c, cudaStream_t s) {
      CUDALAB_CUDA_CHECK(cudaMemcpyAsync(buf.device.data() + c.offset, host + c.offset, c.count,
                                         cudaMemcpyHostToDevice, s));
    };
    auto download = [&](std::uint8_t* host, const Chunk& c, cudaStream_t s) {
      CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host + c.offset, buf.device.data() + c.offset, c.count,
                                         cudaMemcpyDeviceToHost, s));
    };
    auto stream_of = [&](std::size_t chunk) { return worker_handles[chunk % worker_handles.size()]; };

    auto enqueue = [&](Variant v, cudaStream_t s) {
      const bool pageable = v == Variant::pageable;
      const std::uint8_t* in = pageable ? buf.pageable_in.data() : buf.pinned_in.data();
      std::uint8_t* out = pageable ? buf.pageable_out.data() : buf.pinned_out.data();
      switch (v) {
        case Variant::sequential: {
          const Chunk whole{0, buf.bytes};
          upload(in, whole, s);
          launch_affine_steps(buf.device.data(), buf.bytes, iters, s);
          download(out, whole, s);
          return;
        }
        case Variant::depth_first:
        case Variant::pageable:
          fork_streams(s, worker_handles, fork_event);
          for (std::size_t c = 0; c < chunks.size(); ++c) {
            upload(in, chunks[c], stream_of(c));
            launch_affine_steps(buf.device.data() + chunks[c].offset, chunks[c].count, iters, stream_of(c));
            download(out, chunks[c], stream_of(c));
          }
          join_streams(s, worker_handles, join_events);
          return;
        case Variant::breadth_first:
          fork_streams(s, worker_handles, fork_event);
          for (std::size_t c = 0; c < chunks.size(); ++c) upload(in, chunks[c], stream_of(c));
          for (std::size_t c = 0; c < chunks.size(); ++c) {
            launch_affine_steps(buf.device.data() + chunks[c].offset, chunks[c].count, iters, stream_of(c));
          }
          for (std::size_t c = 0; c < chunks.size(); ++c) download(out, chunks[c], stream_of(c));
          join_streams(s, worker_handles, join_events);
          return;
        case Variant::transfer_compute:
          enqueue_transfer_compute(buf, chunks, in, out, iters, s, pair_handles, fork_event, join_events, uploaded,
                                   computed);
          return;
      }
    };

    const std::vector<VariantInfo> variants = {
        {Variant::sequential, "sequential", "sequential (1 stream, whole buffer)"},
        {Variant::depth_first, "depth_first", "depth-first (H2D→kernel→D2H per chunk)"},
        {Variant::breadth_first, "breadth_first", "breadth-first (all H2D, kernels, D2H)"},
        {Variant::pageable, "pageable", "depth-first from pageable memory"},
        {Variant::transfer_compute, "transfer_compute", "transfer stream + compute stream (events)"},
    };

    // --- the model: the same stage times on the device's real engines ---
    EngineConfig engines;
    engines.copy_engines = dev.async_engine_count;
    const PipelineStages pinned_stages{median_of(h2d_pinned), median_of(kernel_stage), median_of(d2h_pinned)};
    const PipelineStages pageable_stages{median_of(h2d_pageable), median_of(kernel_stage), median_of(d2h_pageable)};
    const double n = static_cast<double>(chunk_count);
    auto predict = [&](Variant v) {
      switch (v) {
        case Variant::sequential:
          return simulate(pipeline_ops(1, 1, {pinned_stages.h2d * n, pinned_stages.kernel * n, pinned_stages.d2h * n},
                                       IssueOrder::depth_first, false),
                          engines).makespan;
        case Variant::depth_first:
          return simulate(pipeline_ops(chunk_count, streams_, pinned_stages, IssueOrder::depth_first, false), engines)
              .makespan;
        case Variant::breadth_first:
          return simulate(pipeline_ops(chunk_count, streams_, pinned_stages, IssueOrder::breadth_first, false), engines)
              .makespan;
        case Variant::pageable:
          return simulate(pipeline_ops(chunk_count, streams_, pageable_stages, IssueOrder::depth_first, true), engines)
              .makespan;
        case Variant::transfer_compute:
          return simulate(transfer_compute_ops(chunk_count, pinned_stages), engines).makespan;
      }
      return 0.0;
    };

    Report r;
    r.params = {
        Param{"size", format_bytes(size_), true},
        Param{"streams", std::to_string(streams_), true},
        Param{"chunks", std::to_string(chunk_count), true},
        Param{"kernel-iters", std::to_string(iters), kernel_iters_ != 0},
        Param{"memory", memory_, true},
    };
    r.devices.push_back(summary_of(dev));

    Section setup;
    setup.key = "setup";
    setup.title = "per-chunk stages, measured alone";
    setup.notes_key = "stages";
    setup.facts.push_back(Fact{"chunking", "chunks",
                               fmt::format("{} chunks of {}{} over {} stream{}", chunk_count, format_bytes(largest_chunk),
                                           chunks.back().count != largest_chunk
                                               ? fmt::format(" or {}", format_bytes(chunks.back().count))
                                               : std::string(),
                                           streams_, streams_ == 1 ? "" : "s"),
                               "uneven sizes: the first chunks carry one extra byte, nothing is dropped", true});
    setup.facts.push_back(Fact{"copy_engines", "copy engines", std::to_string(dev.async_engine_count),
                               dev.async_engine_count >= 2 ? "H2D and D2H each have an engine: the model uses both"
                                                           : "one engine for both directions: the model shares it",
                               true});
    setup.facts.push_back(Fact{"kernel_iters", "kernel iterations", std::to_string(iters), iters_reason, kernel_iters_ != 0});
    auto stage_metric = [&](std::string key, std::string label, std::vector<double> samples) {
      Metric m;
      m.key = "stage." + key;
      m.label = std::move(label);
      m.unit = "ms";
      m.samples = std::move(samples);
      setup.metrics.push_back(std::move(m));
    };
    stage_metric("h2d_pinned", "H2D one chunk (pinned)", h2d_pinned);
    stage_metric("kernel", "kernel one chunk", kernel_stage);
    stage_metric("d2h_pinned", "D2H one chunk (pinned)", d2h_pinned);
    stage_metric("h2d_pageable", "H2D one chunk (pageable)", h2d_pageable);
    stage_metric("d2h_pageable", "D2H one chunk (pageable)", d2h_pageable);
    r.sections.push_back(std::move(setup));

    Section timed;
    timed.key = "variants";
    timed.title = "variants: measured vs the engine model";
    timed.notes_key = "variants";
    std::vector<double> measured_median(variants.size());
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const VariantInfo& info = variants[i];
      Metric m;
      m.key = std::string("variant.") + info.key;
      m.label = info.label;
      m.unit = "ms";
      m.samples = time_on_stream(origin, ctx.reps, [&](cudaStream_t s) { enqueue(info.variant, s); });
      m.predicted = predict(info.variant);
      measured_median[i] = median_of(m.samples);
      m.note = fmt::format("{:.0f}% of model", 100.0 * *m.predicted / measured_median[i]);
      timed.metrics.push_back(std::move(m));

      const bool pageable = info.variant == Variant::pageable;
      const std::uint8_t* in = pageable ? buf.pageable_in.data() : buf.pinned_in.data();
      std::uint8_t* out = pageable ? buf.pageable_out.data() : buf.pinned_out.data();
      // Poison with the complement of the right answer, so no unwritten byte can pass.
      for (std::size_t b = 0; b < buf.bytes; ++b) out[b] = static_cast<std::uint8_t>(~table[in[b]]);
      CUDALAB_CUDA_CHECK(cudaMemsetAsync(buf.device.data(), 0xFF, buf.bytes, origin));
      CUDALAB_CUDA_CHECK(cudaMemsetAsync(buf.slots.data(), 0xFF, buf.slots.bytes(), origin));
      enqueue(info.variant, origin);
      origin.synchronize();
      std::size_t correct = 0;
      for (std::size_t b = 0; b < buf.bytes; ++b) correct += out[b] == table[in[b]] ? 1 : 0;
      r.checks.push_back(verify_check(
          info.key, correct == buf.bytes,
          fmt::format("{}: {} of {} bytes match the CPU reference", info.label, format_count(correct),
                      format_count(buf.bytes)),
          "a wrong or missing byte means a chunk was skipped, copied before its kernel ended, or overwritten"));
    }

    const double sequential = measured_median[0];
    const double depth = measured_median[1];
    const double pageable_ms = measured_median[3];
    auto speedup_metric = [&](std::string key, std::string label, double value, double predicted) {
      Metric m = single_value(std::move(key), std::move(label), "x", value);
      m.predicted = predicted;
      timed.metrics.push_back(std::move(m));
    };
    const double predicted_speedup = predict(Variant::sequential) / predict(Variant::depth_first);
    speedup_metric("speedup.depth_first", fmt::format("speed-up, {} streams vs sequential", streams_), sequential / depth,
                   predicted_speedup);
    const double pageable_serial = n * (pageable_stages.h2d + pageable_stages.kernel + pageable_stages.d2h);
    speedup_metric("speedup.pageable", "pageable: its own serial sum vs measured", pageable_serial / pageable_ms,
                   pageable_serial / predict(Variant::pageable));
    r.sections.push_back(std::move(timed));

    // --- the traced runs: each variant once more, untimed, for its picture ---
    if (ctx.tracing()) {
      std::vector<NamedLane> worker_lanes;
      for (std::size_t w = 0; w < worker_handles.size(); ++w) {
        worker_lanes.push_back({worker_handles[w], fmt::format("stream {}", w)});
      }
      auto trace_variant = [&](Variant v, const std::string& title, const std::vector<NamedLane>& lanes) {
        return traced_run(r.timelines, title, lanes, [&](TraceSession&) { enqueue(v, origin); });
      };
      const auto sequential_trace =
          trace_variant(Variant::sequential, "sequential: one stream, the whole buffer", {{origin, "one stream"}});
      const bool draw_pinned = memory_ != "pageable";
      std::optional<Timeline> depth_trace;
      if (draw_pinned) {
        depth_trace = trace_variant(
            Variant::depth_first,
            fmt::format("depth-first, pinned: {} chunks over {} streams (chunk c on stream c mod {})", chunk_count,
                        streams_, streams_),
            worker_lanes);
      }
      if (memory_ != "pinned") {
        trace_variant(Variant::pageable, "depth-first from pageable memory: the same streams, no staircase",
                      worker_lanes);
      }
      trace_variant(Variant::transfer_compute, "transfer stream + compute stream, handing chunks over by events",
                    {{transfer, "transfer"}, {compute, "compute"}});
      if (sequential_trace && depth_trace) {
        r.checks.push_back(trace_matches_timed_runs(*sequential_trace, *depth_trace, measured_median[0],
                                                    pinned_stages, chunk_count, streams_));
      }
    }

    const double model_ratio = predict(Variant::depth_first) / depth;
    if (streams_ >= 2) {
      r.checks.push_back(expect_check(
          "overlap_beats_sequential", sequential / depth > 1.2,
          fmt::format("{} streams are {:.2f}× faster than one (model {:.2f}×)", streams_, sequential / depth,
                      predicted_speedup),
          "needs at least one copy engine beside the compute engine, pinned memory and no CUDA_LAUNCH_BLOCKING; "
          "an MPS or MIG slice, or another process on the GPU, can take the overlap away"));
    } else {
      r.checks.push_back(expect_check(
          "one_stream_cannot_overlap", depth > 0.85 * sequential,
          fmt::format("with one stream the chunked run takes {:.2f}× the sequential time: nothing overlaps",
                      depth / sequential),
          "stream order forces every copy and kernel of one stream to run one after another"));
    }
    r.checks.push_back(expect_check(
        "model_predicts_overlap", std::fabs(model_ratio - 1.0) <= 0.15,
        fmt::format("depth-first run within 15% of the engine model ({:.0f}% of model)", 100.0 * model_ratio),
        "the model ignores launch overhead and assumes each kernel fills the GPU; tiny chunks or a busy GPU break that"));
    const double pinned_gain = n * (pinned_stages.h2d + pinned_stages.kernel + pinned_stages.d2h) / depth;  // pinned: serial stage sum / measured
    r.checks.push_back(expect_check(
        "pageable_loses_overlap",
        // "Lost": pageable keeps less than 40% of the gain pinned memory gets (at least 1.25x),
        // so a little staging overlap in the driver does not flip the verdict between runs.
        pageable_serial / pageable_ms < std::max(1.25, 1.0 + 0.4 * (pinned_gain - 1.0)),
        fmt::format("pageable memory: {:.2f}× of its serial stage sum, against {:.2f}× for pinned",
                    pageable_serial / pageable_ms, pinned_gain),
        "a copy from pageable memory makes the host wait for it, so the next chunk is issued only after it ends; a "
        "driver that stages asynchronously could hide part of that"));

    r.headline = fmt::format("{} streams {:.2f}× vs sequential (model {:.2f}×)", streams_, sequential / depth,
                             predicted_speedup);
    r.try_next = {
        {"cudalab stream-overlap --streams 8", "more streams: how close to the 3N/(N+2) ceiling?"},
        {"cudalab stream-overlap --streams 1", "one stream: the staircase collapses"},
        {"cudalab stream-overlap --memory pageable --timeline", "where did the overlap go? look at the picture"},
        {"cudalab stream-overlap --streams 4 --chunks 64 --size 16MiB", "too many tiny chunks: launch overhead eats the gain"},
        {"cudalab stream-overlap --kernel-iters 4000", "a kernel-bound pipeline: copies hide behind compute"},
        {"CUDA_LAUNCH_BLOCKING=1 cudalab stream-overlap", "every launch waits: where did the overlap go?"},
    };
    return r;
  }

 private:
  // The issue's acceptance check: what CUPTI saw agrees with what the events timed. The one
  // sequential lane's busy time against the timed sequential run; each depth-first lane's busy
  // time against its chunks' stage times measured alone.
  static Check trace_matches_timed_runs(const Timeline& sequential, const Timeline& depth_first,
                                        double sequential_ms, const PipelineStages& stages, int chunk_count,
                                        int streams) {
    constexpr double kTolerance = 0.10;
    double worst = std::fabs(device_busy_ms(sequential, "one stream") / sequential_ms - 1.0);
    std::string worst_lane = "one stream (sequential)";
    const double per_chunk_ms = stages.h2d + stages.kernel + stages.d2h;
    for (int w = 0; w < streams; ++w) {
      const int chunks_on_lane = chunk_count / streams + (w < chunk_count % streams ? 1 : 0);
      const std::string lane = fmt::format("stream {}", w);
      const double deviation = std::fabs(device_busy_ms(depth_first, lane) / (chunks_on_lane * per_chunk_ms) - 1.0);
      if (deviation > worst) {
        worst = deviation;
        worst_lane = lane + " (depth-first)";
      }
    }
    return expect_check(
        "trace_matches_timed_runs", worst <= kTolerance,
        fmt::format("each lane's traced copy and kernel time is within {:.0f}% of the timed runs (worst: {}, {:.1f}%)",
                    100 * kTolerance, worst_lane, 100 * worst),
        "the traced run is a separate run: CUPTI adds a little time per operation, and in the overlapped run copies "
        "in both directions and kernels share PCIe and the SMs, so an operation can take longer than it did alone; "
        "with tiny chunks these fixed costs are a large share");
  }

  // Double buffering: one transfer stream carries both directions, one compute stream runs the
  // kernels; events hand each chunk from one to the other. Chunk c lives in slot c % 2, and
  // the transfer stream's order (H2D c+2 after D2H c) keeps a slot from being refilled early.
  static void enqueue_transfer_compute(const Buffers& buf, const std::vector<Chunk>& chunks, const std::uint8_t* in,
                                       std::uint8_t* out, int iters, cudaStream_t origin,
                                       const std::vector<cudaStream_t>& pair, const Event& fork_event,
                                       const std::vector<Event>& join_events, const std::vector<Event>& uploaded,
                                       const std::vector<Event>& computed) {
    const cudaStream_t transfer = pair[0];
    const cudaStream_t compute = pair[1];
    auto slot = [&](std::size_t c) { return buf.slots.data() + (c % 2) * buf.slot_bytes; };
    auto upload = [&](std::size_t c) {
      CUDALAB_CUDA_CHECK(cudaMemcpyAsync(slot(c), in + chunks[c].offset, chunks[c].count, cudaMemcpyHostToDevice,
                                         transfer));
      uploaded[c].record(transfer);
    };
    fork_streams(origin, pair, fork_event);
    upload(0);
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(compute, uploaded[c].get(), 0));
      launch_affine_steps(slot(c), chunks[c].count, iters, compute);
      computed[c].record(compute);
      if (c + 1 < chunks.size()) upload(c + 1);
      CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(transfer, computed[c].get(), 0));
      CUDALAB_CUDA_CHECK(cudaMemcpyAsync(out + chunks[c].offset, slot(c), chunks[c].count, cudaMemcpyDeviceToHost,
                                         transfer));
    }
    join_streams(origin, pair, join_events);
  }


  std::uint64_t size_ = 64ull << 20;
  int streams_ = 4;
  int chunks_ = 0;
  int kernel_iters_ = 0;
  std::string memory_ = "both";
};

}  // namespace

std::unique_ptr<Lesson> make_stream_overlap() { return std::make_unique<StreamOverlap>(); }

}  // namespace cudalab
