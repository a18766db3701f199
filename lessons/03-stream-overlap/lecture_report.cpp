#include "lecture_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/core/text_format.hpp"
#include "common/report/named_figures.hpp"
#include "lessons/shared/lecture-kernel/sin_cos.hpp"

namespace cudalab::stream_overlap {

namespace {

// `what` is words ("cold -> warm"), translated on its own.
Message share_note(const char* what, double factor, double total) {
  return msg("{what}: {percent}% of the speed-up", arg("what", what),
             arg("percent", fmt::format("{:.0f}", 100.0 * share_of(factor, total))));
}

void add_facts(SectionBuilder& s, const LectureReplica& r) {
  s.fact("lecture_speedup", "lecture 002 (NVIDIA L20)",
         msg("{sequential} -> {overlapped}: {speedup}", arg("sequential", named_figure_text("lecture002.sequential")),
             arg("overlapped", named_figure_text("lecture002.overlapped")),
             arg("speedup", named_figure_text("lecture002.speedup"))),
         "its baseline copies from malloc'd memory, its overlapped run from pinned")
      .fact("program", "its program", verbatim("cuda_basics/05_stream_overlap.cu"),
            "shizhengLi/cuda-triton-learning: 4M floats in 4 segments, 1000 × sinf + cosf per element")
      .fact("kernel_fills", "one segment's kernel",
            msg("{blocks} blocks of {threads}", arg("blocks", format_count(static_cast<std::size_t>(r.kernel_blocks))),
                arg("threads", lecture::kThreads)),
            msg("the GPU holds {sms} × {per_sm} = {resident} at once: one kernel fills it, so streams can overlap "
                "only copies",
                arg("sms", r.sm_count), arg("per_sm", r.blocks_per_sm),
                arg("resident", format_count(static_cast<std::size_t>(r.resident_blocks())))),
            false);
  if (!r.first_in_process) {
    s.fact("not_cold", "cold run", "not cold", "this process had run the program before: its kernel was loaded", false);
  }
}

void add_times(SectionBuilder& s, const LectureReplica& r, const LecturePrediction& predicted) {
  s.metric(measured("lecture.cold", "its sequential run, cold", "ms", {r.cold_ms})
               .with_note("as it times it: malloc'd memory, one stream; one run, a process is cold once"))
      .metric(measured("lecture.untouched", "again, new malloc'd output", "ms", r.untouched_ms)
                  .with_note("a warm process; the output's pages are first touched by the copies back"))
      .metric(measured("lecture.touched", "again, new output written before", "ms", r.touched_ms))
      .metric(measured("lecture.warm", "again, the same buffers", "ms", r.warm_ms))
      .metric(measured("lecture.pinned", "pinned, one stream", "ms", r.pinned_ms).with_prediction(predicted.pinned_ms))
      .metric(measured("lecture.streams", "its overlapped run (pinned, 4 streams)", "ms", r.streams_ms)
                  .with_prediction(predicted.streams_ms))
      .metric(measured("lecture.kernel", "one segment's kernel alone", "ms", r.kernel_ms))
      .metric(measured("lecture.demo", "its transfer + compute demo", "ms", r.demo_ms)
                  .with_note("2M floats, 4 batches, 1500 iterations, no waits"));
}

void add_split(SectionBuilder& s, const LectureSplit& split, const LecturePrediction& predicted) {
  const double t = split.total;
  s.metric(derived("lecture.total", "its speed-up, measured here", "x", t)
               .with_note("cold malloc'd one stream -> pinned 4 streams"))
      .metric(derived("lecture.cold_start", "cold start", "x", split.cold_start)
                  .with_note(share_note("cold -> warm", split.cold_start, t)))
      .metric(derived("lecture.first_launch", "cold start: first launch", "x", split.first_launch)
                  .with_note("cold -> a warm process, new output"))
      .metric(derived("lecture.first_touch", "cold start: first touch of the output", "x", split.first_touch)
                  .with_note("new output -> new output written before"))
      .metric(derived("lecture.first_copy", "cold start: first copy into a buffer", "x", split.first_copy)
                  .with_note("written before -> copied into before"))
      .metric(derived("lecture.pinning", "pinning", "x", split.pinning)
                  .with_note(share_note("malloc'd -> pinned, one stream", split.pinning, t)))
      .metric(derived("lecture.overlap", "overlap", "x", split.overlap)
                  .with_prediction(predicted.streams_ms > 0 ? predicted.pinned_ms / predicted.streams_ms : 0)
                  .with_note(share_note("one stream -> 4 streams", split.overlap, t)));
}

void add_checks(ReportBuilder& b, const LectureReplica& r, const LecturePrediction& predicted) {
  const std::pair<const char*, const Tally*> runs[] = {{"cold", &r.cold},     {"untouched", &r.untouched},
                                                       {"touched", &r.touched}, {"warm", &r.warm},
                                                       {"pinned", &r.pinned},   {"streams", &r.streams}};
  for (const auto& [key, tally] : runs) {
    b.verify(fmt::format("lecture.{}", key), *tally, Counted::elements,
             msg("lecture program, {run} run", arg("run", key)),
             "a wrong element means a segment was skipped, or copied back before its kernel ended");
  }
  const int resident = r.resident_blocks();
  b.expect("lecture_kernel_fills_gpu", r.kernel_blocks >= resident,
           msg("each of its kernels has {blocks} blocks, at least the {resident} the GPU runs at once",
               arg("blocks", format_count(static_cast<std::size_t>(r.kernel_blocks))),
               arg("resident", format_count(static_cast<std::size_t>(resident)))),
           "a GPU with more SMs than the program's segment has waves would leave room for a second kernel");
  const double streams = median_of(r.streams_ms);
  const double ratio = predicted.streams_ms > 0 ? streams / predicted.streams_ms : 0;
  b.expect("lecture_model_predicts_overlap", std::fabs(ratio - 1.0) <= kLectureModelTolerance,
           msg("its 4-stream run within {tolerance}% of the engine model, one kernel at a time (measured = "
               "{percent}% of model)",
               arg("tolerance", fmt::format("{:.0f}", 100 * kLectureModelTolerance)),
               arg("percent", fmt::format("{:.0f}", 100 * ratio))),
           "the model lets a kernel start only when the one before it has ended; a kernel's last wave leaves SMs "
           "idle that the next kernel can already use, which shortens the run a little")
      .depends_on({"lecture.streams"});
  b.expect("lecture_demo_caught", !r.demo.all_correct(),
           msg("its transfer + compute demo, verified: {wrong} of {checked} elements are wrong",
               arg("wrong", format_count(r.demo.checked - r.demo.correct)),
               arg("checked", format_count(r.demo.checked))),
           "without a wait, a kernel reads its batch before the upload lands and a download leaves before its kernel "
           "ends; on a GPU where the copies ran far slower than the kernels this could come out right by chance");
}

}  // namespace

LectureSplit split_lecture_speedup(const LectureTimes& t) {
  LectureSplit s;
  s.total = t.cold / t.streams;
  s.cold_start = t.cold / t.warm;
  s.first_launch = t.cold / t.untouched;
  s.first_touch = t.untouched / t.touched;
  s.first_copy = t.touched / t.warm;
  s.pinning = t.warm / t.pinned;
  s.overlap = t.pinned / t.streams;
  return s;
}

double share_of(double factor, double total) {
  const double log_total = std::log(total);
  return std::fabs(log_total) > 1e-12 ? std::log(factor) / log_total : 0.0;
}

void add_lecture_replica(ReportBuilder& b, const LectureReplica& r, const LecturePrediction& predicted) {
  auto s = b.section("lecture", "lecture vs lab: lecture 002's program, replayed as written");
  add_facts(s, r);
  add_times(s, r, predicted);
  const LectureTimes times{r.cold_ms,          median_of(r.untouched_ms), median_of(r.touched_ms),
                           median_of(r.warm_ms), median_of(r.pinned_ms),    median_of(r.streams_ms)};
  add_split(s, split_lecture_speedup(times), predicted);
  add_checks(b, r, predicted);
}

}  // namespace cudalab::stream_overlap
