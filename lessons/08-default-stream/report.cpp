#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "common/report/named_figures.hpp"

namespace cudalab::default_stream {

namespace {

double median_us(const Case& c) { return median_of(c.total_us); }

// "0.93 of the way from overlapped to lost"
Message way_note(double share) {
  return msg("{share} of the way from overlapped to lost", arg("share", fmt::format("{:.2f}", share)));
}

// One case's two ways, side by side: the broken one, then the fix.
SectionBuilder case_section(ReportBuilder& b, const std::string& key, const Message& title, const Bounds& bounds,
                  const std::pair<Message, const Case*>& lost, const std::pair<Message, const Case*>& kept,
                  double lost_spread_tolerance = kDefaultSpreadTolerance) {
  return b.section(key, title)
      .metric(measured(key + ".lost", lost.first, "us", lost.second->total_us)
                  .with_spread_tolerance(lost_spread_tolerance)
                  .with_prediction(bounds.lost_us)
                  .with_note(way_note(lost_share(median_us(*lost.second), bounds))))
      .metric(measured(key + ".kept", kept.first, "us", kept.second->total_us)
                  .with_prediction(bounds.overlapped_us)
                  .with_note(way_note(lost_share(median_us(*kept.second), bounds))))
      .metric(derived(key + ".speedup", "the fix: speed-up", "x", median_us(*lost.second) / median_us(*kept.second))
                  .with_prediction(bounds.lost_us / bounds.overlapped_us)
                  .from({key + ".lost", key + ".kept"}));
}

enum class KeptJudgedOn { median, fastest_run };

// The two checks of one case: the broken way lost the overlap, the fix kept it.
void case_checks(ReportBuilder& b, const std::string& key, const Bounds& bounds, const Case& lost, const Case& kept,
                 const Message& what_lost, const Message& what_kept, const Message& why_may_fail,
                 KeptJudgedOn judged_on = KeptJudgedOn::median) {
  const double broken_share = lost_share(median_us(lost), bounds);
  const double kept_us = judged_on == KeptJudgedOn::median ? median_us(kept) : *std::min_element(kept.total_us.begin(), kept.total_us.end());
  const double fixed_share = lost_share(kept_us, bounds);
  b.expect(key + "_overlap_lost", broken_share >= kLostMinShare,
           msg("{what}: {us} us, {share} of the way from overlapped ({overlapped_us} us) to lost ({lost_us} us)",
               arg("what", what_lost), arg("us", fmt::format("{:.0f}", median_us(lost))),
               arg("share", fmt::format("{:.2f}", broken_share)),
               arg("overlapped_us", fmt::format("{:.0f}", bounds.overlapped_us)),
               arg("lost_us", fmt::format("{:.0f}", bounds.lost_us))),
           why_may_fail)
      .depends_on({key + ".lost"});
  const std::string kept_text = fmt::format("{:.0f}", kept_us);
  const std::string fixed_text = fmt::format("{:.2f}", fixed_share);
  b.expect(key + "_overlap_kept", fixed_share <= kKeptMaxShare,
           judged_on == KeptJudgedOn::median
               ? msg("{what}: {us} us, {share} of the way from overlapped to lost", arg("what", what_kept),
                     arg("us", kept_text), arg("share", fixed_text))
               : msg("{what}: {us} us in the fastest run, {share} of the way from overlapped to lost",
                     arg("what", what_kept), arg("us", kept_text), arg("share", fixed_text)),
           "other work on the GPU (MPS, another process) or CUDA_LAUNCH_BLOCKING=1 serializes what the streams "
           "allow to overlap; very short kernels (--kernel-us) leave launch gaps that count against overlap");
  // A noisy median may flip a median verdict; the fastest run stands whatever the others did.
  if (judged_on == KeptJudgedOn::median) b.depends_on({key + ".kept"});
}

// The per-thread runs that ran side by side (model.hpp, runs_side_by_side), as a case of their
// own; all of them when none did (the kept check then fails on the fastest run).
Case side_by_side(const Case& per_thread, const Prediction& predicted, const Measurements& m) {
  Case out = per_thread;
  out.total_us = runs_side_by_side(per_thread.total_us, predicted.threads, median_us(m.alone));
  if (out.total_us.empty()) out.total_us = per_thread.total_us;
  return out;
}

// Two host threads. Some per-thread runs have a slow mode: one thread's kernels waited for the
// other's, in whole kernel lengths. The streams do not wait for each other there (one run side by
// side shows they do not), so the figure comes from the runs side by side, every run is shown
// beside it, and the others are counted.
void threads_section(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  const Case side = side_by_side(m.threads_per_thread, predicted, m);
  const std::size_t all = m.threads_per_thread.total_us.size();
  case_section(b, "threads", "two host threads, each launching on its default stream", predicted.threads,
               {"both on cudaStreamLegacy (stream 0)", &m.threads_legacy},
               {"each on cudaStreamPerThread, runs side by side", &side})
      .metric(measured("threads.per_thread_all", "each on cudaStreamPerThread, every run", "us",
                       m.threads_per_thread.total_us)
                  .with_prediction(predicted.threads.overlapped_us))
      .metric(derived("threads.runs_in_a_row", "per-thread runs that lost whole kernels", "runs",
                      static_cast<double>(all - std::min(all, side.total_us.size())))
                  .with_note(msg("of {runs}", arg("runs", all))));
}

// One host thread's per-thread default stream in turns with stream 0, then with a blocking stream.
void per_thread_section(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  case_section(b, "perthread", "the per-thread default stream in turns with stream 0, then with a blocking stream",
               predicted.per_thread, {"per-thread stream and stream 0", &m.per_thread_beside_stream0},
               {"per-thread stream and a blocking stream", &m.per_thread_beside_blocking});
}

void lecture_section(ReportBuilder& b) {
  b.section("lecture", "what the lectures say about stream 0 (lectures 002, 003), and this run")
      .table("claims", {"the lectures say", "lecture (NVIDIA L20)", "this run"},
             {{text_cell("work on stream 0 runs in order"), text_cell(msg("{sequential} in order vs {overlapped} in 4 streams",
                                 arg("sequential", named_figure_text("lecture002.sequential")),
                                 arg("overlapped", named_figure_text("lecture002.overlapped")))),
               metric_cell("threads.lost")},
              {text_cell("(not said) stream 0 also waits for blocking streams, and they for it"), text_cell("-"),
               metric_cell("stream0.lost")},
              {text_cell("(not said) non-blocking streams ignore stream 0"), text_cell("-"),
               metric_cell("stream0.kept")},
              {text_cell("(not said) a per-thread default stream per host thread"), text_cell("-"),
               metric_cell("threads.kept")},
              {text_cell("(not said) the per-thread default stream still waits for stream 0"), text_cell("-"),
               metric_cell("perthread.lost")},
              {text_cell("(not said) cudaFree between launches ends the overlap"), text_cell("-"),
               metric_cell("alloc.lost")},
              {text_cell("(not said) stream-ordered allocation keeps it"), text_cell("-"), metric_cell("alloc.kept")}});
}

void verify_results(ReportBuilder& b, const Measurements& m) {
  Tally stream0, threads, alloc;
  stream0.add(m.stream0_blocking.results);
  stream0.add(m.stream0_nonblocking.results);
  threads.add(m.threads_legacy.results);
  threads.add(m.threads_per_thread.results);
  Tally per_thread;
  per_thread.add(m.per_thread_beside_stream0.results);
  per_thread.add(m.per_thread_beside_blocking.results);
  alloc.add(m.alloc_sync.results);
  alloc.add(m.alloc_async.results);
  const Message detail = "a wrong element means a kernel did not run, or ran on the wrong slice";
  b.verify("alone_results", m.alone.results, "one kernel alone", detail);
  b.verify("stream0_results", stream0, "stream 0 between two streams, both ways", detail);
  b.verify("threads_results", threads, "two host threads, both ways", detail);
  b.verify("perthread_results", per_thread, "the per-thread stream beside stream 0 and beside a blocking stream",
           detail);
  b.verify("alloc_results", alloc, "a temporary per step, both ways",
           "a wrong element means a kernel did not run, or ran on the wrong slice; or a temporary was freed too early");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  b.section("setup", "the work: one-block kernels that could all run side by side")
      .fact("kernel", "each kernel", msg("1 block, spins {us} us", arg("us", p.kernel_us)),
            "one SM each: the GPU has room for every one of them at once")
      .fact("lanes", "kernels per lane", verbatim(std::to_string(p.kernels)), "a lane is a stream or a host thread")
      .metric(measured("alone", "one kernel alone", "us", m.alone.total_us).with_note("the model's one input"));
  case_section(b, "stream0", "a kernel on stream 0 between two streams' kernels, round after round",
               predicted.stream0, {"streams from cudaStreamCreate (blocking)", &m.stream0_blocking},
               {"streams with cudaStreamNonBlocking", &m.stream0_nonblocking});
  threads_section(b, m, predicted);
  per_thread_section(b, m, predicted);
  case_section(b, "alloc", "a temporary buffer per step, steps on two non-blocking streams in turn",
               predicted.alloc, {"cudaMalloc / cudaFree", &m.alloc_sync},
               {"cudaMallocAsync / cudaFreeAsync", &m.alloc_async}, kHostBoundSpreadTolerance);
  lecture_section(b);

  verify_results(b, m);
  case_checks(b, "stream0", predicted.stream0, m.stream0_blocking, m.stream0_nonblocking,
              "blocking streams around stream 0 run as a staircase of barriers",
              "non-blocking streams run beside stream 0",
              "needs the legacy default stream: a driver in per-thread default-stream mode for this process, or "
              "MPS, changes what stream 0 waits for");
  b.headline_check("stream0_overlap_lost");  // the lesson's point: stream 0 makes a staircase
  case_checks(b, "threads", predicted.threads, m.threads_legacy, m.threads_per_thread,
              "two threads on stream 0 share one queue", "two per-thread default streams run side by side",
              "a slow host thread start (over the 1 ms start gate) shows as lost time in either way",
              KeptJudgedOn::fastest_run);
  case_checks(b, "perthread", predicted.per_thread, m.per_thread_beside_stream0, m.per_thread_beside_blocking,
              "the per-thread default stream and stream 0 wait for each other", "beside a blocking stream it does not wait",
              "the CUDA documentation says the per-thread default stream synchronizes with the legacy default stream; a "
              "program compiled with --default-stream per-thread has no legacy stream 0 to wait for");
  case_checks(b, "alloc", predicted.alloc, m.alloc_sync, m.alloc_async,
              "cudaFree after each step waits for the device", "stream-ordered allocation keeps the overlap",
              "cudaFree waiting for the device is how current drivers behave, not a documented promise; a driver "
              "that frees without waiting would keep the overlap");

  const auto us = [](const Case& c) { return fmt::format("{:.0f}", median_us(c)); };
  b.headline(msg("stream 0 between streams {blocking} -> {nonblocking} us non-blocking; two threads {legacy} -> "
                 "{per_thread} us per-thread; cudaFree {free} -> {free_async} us cudaFreeAsync",
                 arg("blocking", us(m.stream0_blocking)), arg("nonblocking", us(m.stream0_nonblocking)),
                 arg("legacy", us(m.threads_legacy)), arg("per_thread", us(m.threads_per_thread)),
                 arg("free", us(m.alloc_sync)), arg("free_async", us(m.alloc_async))),
             {"stream0.speedup", "threads.speedup", "alloc.speedup"});
  b.try_next("cudalab default-stream --timeline", "see the staircase and the side-by-side lanes")
      .try_next("cudalab default-stream --kernels 16", "more rounds: the lost time grows with every kernel")
      .try_next("cudalab default-stream --kernel-us 20", "short kernels: launch gaps start to show in the overlap")
      .try_next("CUDA_LAUNCH_BLOCKING=1 cudalab default-stream", "every launch waits: nothing overlaps any more");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::default_stream
