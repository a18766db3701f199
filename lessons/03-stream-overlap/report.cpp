#include "report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "lecture_report.hpp"

namespace cudalab::stream_overlap {

namespace {

constexpr Variant kModelled[] = {Variant::sequential, Variant::depth_first, Variant::breadth_first, Variant::pageable,
                                 Variant::transfer_compute};
constexpr Variant kVerified[] = {Variant::sequential, Variant::depth_first, Variant::breadth_first, Variant::pageable,
                                 Variant::transfer_compute};

double median_ms(const Measurements& m, Variant v) { return median_of(m.runs.at(v).ms); }

void add_setup(ReportBuilder& b, const Params& p, const Measurements& m) {
  const bool uneven = m.smallest_chunk != m.largest_chunk;
  Message iters_reason = "given with --kernel-iters";
  if (m.calibration) {
    const Calibration& c = *m.calibration;
    iters_reason = msg(
        "calibrated on this GPU: the kernel took {low_ms} ms at {low_iters} and {high_ms} ms at {high_iters} "
        "iterations on one chunk; the line through both reaches one chunk's copy time ({copy_ms} ms) at {iters}",
        arg("low_ms", format_number(c.low_ms)), arg("low_iters", c.low_iters), arg("high_ms", format_number(c.high_ms)),
        arg("high_iters", c.high_iters), arg("copy_ms", format_number(c.copy_ms)), arg("iters", m.iters));
    if (c.missed) {
      iters_reason = msg("{calibration}; a first line missed (its kernel took {kernel_ms} ms against a {copy_ms} ms "
                         "copy), so the stages and the line were measured again",
                         arg("calibration", iters_reason), arg("kernel_ms", format_number(c.missed->kernel_ms)),
                         arg("copy_ms", format_number(c.missed->copy_ms)));
    }
  }
  // Even or not, one stream or more: four whole templates.
  Message chunking;
  if (uneven) {
    chunking = p.streams == 1 ? Message("{chunks} chunks of {size} or {smaller} over {streams} stream")
                              : Message("{chunks} chunks of {size} or {smaller} over {streams} streams");
    chunking.with(arg("smaller", format_bytes(m.smallest_chunk)));
  } else {
    chunking = p.streams == 1 ? Message("{chunks} chunks of {size} over {streams} stream")
                              : Message("{chunks} chunks of {size} over {streams} streams");
  }
  chunking.with(arg("chunks", m.chunk_count)).with(arg("size", format_bytes(m.largest_chunk)));
  chunking.with(arg("streams", p.streams));
  auto s = b.section("setup", "per-chunk stages, measured alone", "stages");
  s.fact("chunking", "chunks", chunking,
         uneven ? "uneven sizes: the first chunks carry one extra byte, nothing is dropped" : "");
  s.fact("copy_engines", "copy engines", verbatim(std::to_string(m.copy_engines)),
         m.copy_engines >= 2 ? "H2D and D2H each have an engine: the model uses both"
                             : "one engine for both directions: the model shares it");
  s.fact("kernel_iters", "kernel iterations", verbatim(std::to_string(m.iters)), iters_reason, p.kernel_iters != 0);
  s.metric(measured("stage.h2d_pinned", "H2D one chunk (pinned)", "ms", m.h2d_pinned))
      .metric(measured("stage.kernel", "kernel one chunk", "ms", m.kernel))
      .metric(measured("stage.d2h_pinned", "D2H one chunk (pinned)", "ms", m.d2h_pinned))
      .metric(measured("stage.h2d_pageable", "H2D one chunk (pageable)", "ms", m.h2d_pageable))
      .metric(measured("stage.d2h_pageable", "D2H one chunk (pageable)", "ms", m.d2h_pageable));
}

// Measured ÷ model, spelled so it cannot be read the other way round.
Message measured_vs_model(double measured_ms, double model_ms) {
  return msg("measured = {percent}% of model", arg("percent", fmt::format("{:.0f}", 100.0 * measured_ms / model_ms)));
}

void add_variants(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  auto s = b.section("variants", "variants: measured vs the engine model");
  s.fact("hardware_queues", "hardware queues", verbatim(std::to_string(m.hardware_queues)),
         m.queues_from_env ? "from CUDA_DEVICE_MAX_CONNECTIONS: stream s feeds queue s mod this"
                           : "CUDA's default (CUDA_DEVICE_MAX_CONNECTIONS unset): stream s feeds queue s mod 8",
         false);
  s.fact("one_queue", "model with 1 queue",
         msg("breadth-first {breadth} ms, depth-first {depth} ms",
             arg("breadth", format_number(predicted.breadth_one_queue_ms)),
             arg("depth", format_number(predicted.depth_one_queue_ms))),
         msg("against {breadth} and {depth} ms with {queues}: try CUDA_DEVICE_MAX_CONNECTIONS=1",
             arg("breadth", format_number(predicted.ms.at(Variant::breadth_first))),
             arg("depth", format_number(predicted.ms.at(Variant::depth_first))), arg("queues", m.hardware_queues)),
         false);
  for (Variant v : kModelled) {
    const double model = predicted.ms.at(v);
    s.metric(measured(std::string("variant.") + info_of(v).key, info_of(v).label, "ms", m.runs.at(v).ms)
                 .with_prediction(model)
                 .with_note(measured_vs_model(median_ms(m, v), model)));
  }
  const Message speedup_label = msg("speed-up, {streams} streams vs sequential", arg("streams", p.streams));
  const double model_speedup = predicted.ms.at(Variant::sequential) / predicted.ms.at(Variant::depth_first);
  if (!m.depth_first_speedups.empty()) {
    // Timed in turns: each sample is one pair's ratio, which a drift of the machine cannot move.
    s.metric(measured("speedup.depth_first", speedup_label, "x", m.depth_first_speedups)
                 .with_prediction(model_speedup)
                 .with_note("each sample: one sequential run / the depth-first run right after it"));
    if (!m.set_aside_speedups.empty()) {
      // Shown, never mixed in: the pairs measured through a passing slowdown of the machine.
      s.metric(set_aside("speedup.set_aside", "pairs set aside, measured again", "x", m.set_aside_speedups,
                         m.pair_blocks_set_aside));
    }
  } else {  // measurements without pairs (hand-made in the unit tests)
    s.metric(derived("speedup.depth_first", speedup_label, "x",
                     median_ms(m, Variant::sequential) / median_ms(m, Variant::depth_first))
                 .with_prediction(model_speedup)
                 .from({"variant.sequential", "variant.depth_first"}));
  }
  const PipelineStages pageable = pageable_stages(m);
  const double pageable_serial = m.chunk_count * (pageable.h2d + pageable.kernel + pageable.d2h);
  s.metric(derived("speedup.pageable", "pageable: its own serial sum vs measured", "x",
                   pageable_serial / median_ms(m, Variant::pageable))
               .with_prediction(pageable_serial / predicted.ms.at(Variant::pageable))
               .from({"stage.h2d_pageable", "stage.kernel", "stage.d2h_pageable", "variant.pageable"}));
}

void add_missing_wait(ReportBuilder& b, const Measurements& m) {
  const Tally& right = m.runs.at(Variant::transfer_compute).bytes;
  const Tally& wrong = m.runs.at(Variant::missing_wait).bytes;
  b.section("missing_wait", "the lecture's compute/transfer demo: a wait on no event")
      .fact("bug", "lecture 002's program calls", verbatim("cudaStreamWaitEvent(computeStream, 0, 0)"),
            "event 0 is no event: nothing makes a kernel wait for its upload")
      .table("missing_wait.bytes", {"variant", "bytes matching the CPU", "of"},
             {{text_cell(info_of(Variant::transfer_compute).label), data_cell(format_count(right.correct)),
               data_cell(format_count(right.checked))},
              {text_cell(info_of(Variant::missing_wait).label), data_cell(format_count(wrong.correct)),
               data_cell(format_count(wrong.checked))}});
}

void add_verifies(ReportBuilder& b, const Measurements& m) {
  for (Variant v : kVerified) {
    const Tally& t = m.runs.at(v).bytes;
    b.verify(info_of(v).key, t, Counted::bytes, info_of(v).label,
             "a wrong or missing byte means a chunk was skipped, copied before its kernel ended, or overwritten");
  }
}


void add_model_expects(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  for (Variant v : {Variant::depth_first, Variant::breadth_first}) {
    const double ratio = median_ms(m, v) / predicted.ms.at(v);
    const bool depth = v == Variant::depth_first;
    b.expect(depth ? "model_predicts_overlap" : "model_predicts_breadth_first",
             std::fabs(ratio - 1.0) <= kModelTolerance,
             msg("{variant} run within {tolerance}% of the engine model ({comparison})",
                 arg("variant", depth ? "depth-first" : "breadth-first"),
                 arg("tolerance", fmt::format("{:.0f}", 100 * kModelTolerance)),
                 arg("comparison", measured_vs_model(median_ms(m, v), predicted.ms.at(v)))),
             depth ? "the model ignores launch overhead and assumes each kernel fills the GPU; tiny chunks or a busy "
                     "GPU break that"
                   : "the model assumes a hardware queue keeps an engine while its next op is ready; how a GPU's "
                     "front end picks among queues is not documented and may differ on other GPUs and drivers")
        .depends_on({std::string("variant.") + info_of(v).key});
  }
}

void add_trace_expect(ReportBuilder& b, const Params& p, const Measurements& m) {
  if (!m.traced_sequential_busy_ms) return;
  const PipelineStages stages = pinned_stages(m);
  double worst = std::fabs(*m.traced_sequential_busy_ms / median_ms(m, Variant::sequential) - 1.0);
  Message worst_lane = "one stream (sequential)";
  const double per_chunk_ms = stages.h2d + stages.kernel + stages.d2h;
  for (int w = 0; w < static_cast<int>(m.traced_depth_lane_busy_ms.size()); ++w) {
    const int chunks_on_lane = m.chunk_count / p.streams + (w < m.chunk_count % p.streams ? 1 : 0);
    const double deviation =
        std::fabs(m.traced_depth_lane_busy_ms[static_cast<std::size_t>(w)] / (chunks_on_lane * per_chunk_ms) - 1.0);
    if (deviation > worst) {
      worst = deviation;
      worst_lane = msg("stream {stream} (depth-first)", arg("stream", w));
    }
  }
  b.expect("trace_matches_timed_runs", worst <= kTraceTolerance,
           msg("each lane's traced copy and kernel time is within {tolerance}% of the timed runs (worst: {lane}, "
               "{deviation}%)",
               arg("tolerance", fmt::format("{:.0f}", 100 * kTraceTolerance)), arg("lane", worst_lane),
               arg("deviation", fmt::format("{:.1f}", 100 * worst))),
           "the traced run is a separate run: CUPTI adds a little time per operation, and in the overlapped run copies "
           "in both directions and kernels share PCIe and the SMs, so an operation can take longer than it did alone; "
           "with tiny chunks these fixed costs are a large share");
}

void add_expects(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  add_trace_expect(b, p, m);
  const double sequential = median_ms(m, Variant::sequential);
  const double depth = median_ms(m, Variant::depth_first);
  if (p.streams >= 2) {
    b.expect("overlap_beats_sequential", sequential / depth > kMinOverlapSpeedup,
             msg("{streams} streams are {speedup}× faster than one (model {model}×)", arg("streams", p.streams),
                 arg("speedup", fmt::format("{:.2f}", sequential / depth)),
                 arg("model", fmt::format("{:.2f}", predicted.ms.at(Variant::sequential) /
                                                        predicted.ms.at(Variant::depth_first)))),
             "needs at least one copy engine beside the compute engine, pinned memory and no CUDA_LAUNCH_BLOCKING; "
             "an MPS or MIG slice, or another process on the GPU, can take the overlap away")
        .headline_check("overlap_beats_sequential");
  } else {
    b.expect("one_stream_cannot_overlap", depth > kOneStreamMinShare * sequential,
             msg("with one stream the chunked run takes {ratio}× the sequential time: nothing overlaps",
                 arg("ratio", fmt::format("{:.2f}", depth / sequential))),
             "stream order forces every copy and kernel of one stream to run one after another")
        .headline_check("one_stream_cannot_overlap");
  }
  add_model_expects(b, m, predicted);
  const PipelineStages pinned = pinned_stages(m);
  const PipelineStages pageable = pageable_stages(m);
  const double pinned_gain = m.chunk_count * (pinned.h2d + pinned.kernel + pinned.d2h) / depth;
  const double pageable_gain =
      m.chunk_count * (pageable.h2d + pageable.kernel + pageable.d2h) / median_ms(m, Variant::pageable);
  // "Lost": pageable keeps less than 40% of the gain pinned memory gets (at least 1.25x), so a
  // little staging overlap in the driver does not flip the verdict between runs.
  b.expect("pageable_loses_overlap",
           pageable_gain < std::max(kPageableMaxGain, 1.0 + kPageableGainShare * (pinned_gain - 1.0)),
           msg("pageable memory: {pageable}× of its serial stage sum, against {pinned}× for pinned",
               arg("pageable", fmt::format("{:.2f}", pageable_gain)),
               arg("pinned", fmt::format("{:.2f}", pinned_gain))),
           "a copy from pageable memory makes the host wait for it, so the next chunk is issued only after it ends; a "
           "driver that stages asynchronously could hide part of that");
  const Tally& missing = m.runs.at(Variant::missing_wait).bytes;
  b.expect("missing_wait_caught", !missing.all_correct(),
           msg("without the waits, verification catches it: {wrong} of {checked} bytes are wrong",
               arg("wrong", format_count(missing.checked - missing.correct)),
               arg("checked", format_count(missing.checked))),
           "the lab runs the kernels before the copies, an order CUDA may choose when nothing forbids it; only a "
           "kernel that leaves most bytes unchanged could hide the bug");
}

// --full: where more streams stop paying. Each point of the sweep beside the model's figure (the
// engines' makespan from the point's own stages, or the host's floor where enqueueing takes
// longer), drawn as the speed-up over the run's one-stream baseline.
void add_stream_sweep(ReportBuilder& b, const Measurements& m) {
  const double sequential = median_ms(m, Variant::sequential);
  auto s = b.section("stream_sweep", "more streams: where the gain stops", "stream_sweep");
  Plot plot{"stream_sweep", "speed-up over one stream against the number of streams", "number of streams", "", "speed-up",
            "x", true, false, {}};
  PlotSeries points{"measured", {}, false};
  PlotSeries model{"model (the engines, or the host's floor)", {}, true};
  const SweepPoint* best = nullptr;
  int host_bound_from = 0;
  Tally bytes;
  for (const auto& pt : m.stream_sweep) {
    const std::string key = fmt::format("sweep.streams{}", pt.streams);
    const SweepPrediction predicted = predict_sweep_point(pt, m.copy_engines, m.hardware_queues);
    s.metric(measured(key, msg("{streams} streams, {chunks} chunks of {size}", arg("streams", pt.streams),
                               arg("chunks", pt.chunks), arg("size", format_bytes(pt.chunk_bytes))),
                      "ms", pt.ms)
                 .with_prediction(predicted.ms())
                 .with_note(predicted.host_bound() ? Message("the host's enqueueing sets the model's figure") : Message()));
    s.metric(measured(key + ".enqueue", msg("the host enqueueing them ({streams} streams)", arg("streams", pt.streams)),
                      "ms", pt.enqueue_ms));
    s.metric(derived(key + ".speedup", msg("speed-up over one stream ({streams} streams)", arg("streams", pt.streams)),
                     "x", sequential / median_of(pt.ms))
                 .from({"variant.sequential", key}));
    points.points.push_back({static_cast<double>(pt.streams), key + ".speedup", 0});
    model.points.push_back({static_cast<double>(pt.streams), "", predicted.ms() > 0 ? sequential / predicted.ms() : 0});
    if (best == nullptr || median_of(pt.ms) < median_of(best->ms)) best = &pt;
    if (host_bound_from == 0 && predicted.host_bound()) host_bound_from = pt.streams;
    bytes.add(pt.bytes.correct, pt.bytes.checked);
  }
  plot.series = {points, model};
  s.get().plots.push_back(std::move(plot));
  const SweepPoint& last = m.stream_sweep.back();
  s.fact("sweep_best", "the sweep's best",
         msg("{streams} streams: {speedup}× over one stream", arg("streams", best->streams),
             arg("speedup", format_number(sequential / median_of(best->ms)))),
         {}, false);
  s.fact("sweep_last", "at the most streams",
         msg("{streams} streams: {speedup}×, {percent}% of the best", arg("streams", last.streams),
             arg("speedup", format_number(sequential / median_of(last.ms))),
             arg("percent", fmt::format("{:.0f}", 100.0 * median_of(best->ms) / median_of(last.ms)))),
         {}, false);
  s.fact("sweep_host_bound", "the host's floor",
         host_bound_from > 0
             ? msg("from {streams} streams on, enqueueing the chunks takes the host longer than the engines take to "
                   "run them",
                   arg("streams", host_bound_from))
             : Message("at every stream count of the sweep the engines, not the host's enqueueing, set the pace"),
         {}, false);
  b.verify("stream_sweep", bytes, Counted::bytes, "the stream sweep, every point");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  b.resolve_param("chunks", std::to_string(m.chunk_count), true);
  b.resolve_param("kernel-iters", std::to_string(m.iters), p.kernel_iters != 0);
  add_setup(b, p, m);
  add_variants(b, p, m, predicted);
  add_missing_wait(b, m);
  if (m.lecture) add_lecture_replica(b, *m.lecture, predicted.lecture);
  if (!m.stream_sweep.empty()) add_stream_sweep(b, m);
  add_verifies(b, m);
  add_expects(b, p, m, predicted);
  const double speedup = median_ms(m, Variant::sequential) / median_ms(m, Variant::depth_first);
  b.headline(msg("{streams} streams {speedup}× vs sequential (model {model}×)", arg("streams", p.streams),
                 arg("speedup", fmt::format("{:.2f}", speedup)),
                 arg("model", fmt::format("{:.2f}", predicted.ms.at(Variant::sequential) /
                                                        predicted.ms.at(Variant::depth_first)))),
             {"speedup.depth_first"});
  b.try_next("cudalab stream-overlap --streams 8", "more streams: how close to the 3N/(N+2) ceiling?")
      .try_next("cudalab stream-overlap --streams 1", "one stream: the staircase collapses")
      .try_next("cudalab stream-overlap --memory pageable --timeline", "where did the overlap go? look at the picture")
      .try_next("cudalab stream-overlap --streams 4 --chunks 64 --size 16MiB",
                "too many tiny chunks: launch overhead eats the gain")
      .try_next("cudalab stream-overlap --kernel-iters 4000", "a kernel-bound pipeline: copies hide behind compute")
      .try_next("CUDA_DEVICE_MAX_CONNECTIONS=1 cudalab stream-overlap", "one hardware queue: now the issue order matters")
      .try_next("CUDA_LAUNCH_BLOCKING=1 cudalab stream-overlap", "every launch waits: where did the overlap go?");
  if (!m.lecture) b.try_next("cudalab stream-overlap --full", "also replay the lecture's own program: where its speed-up comes from");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::stream_overlap
