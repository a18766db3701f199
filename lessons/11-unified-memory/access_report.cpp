// Lesson 11's access patterns (zero-copy against copying first, as reads repeat and when they are
// sparse) and every check of the lesson. Pure.
#include <cmath>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/core/text_format.hpp"
#include "report.hpp"
#include "report_parts.hpp"
#include "workload.hpp"

namespace cudalab::unified_memory {

namespace {

// The zero-copy figure of one reuse: reuse 1 is the fourth way, shown with the others.
std::string zero_copy_key(int reuse) { return reuse == 1 ? "way.zero_copy" : fmt::format("reuse.{}.zero_copy", reuse); }

Message crossover_text(const std::optional<int>& crossover, int largest) {
  return crossover ? msg("reuse {reuse}", arg("reuse", *crossover)) : msg("never, up to reuse {reuse}", arg("reuse", largest));
}

// Measured medians per reuse, and where zero-copy starts to lose.
struct MeasuredSweep {
  std::vector<int> reuses;
  std::vector<double> copy_first, zero_copy;
  std::optional<int> crossover;
};
MeasuredSweep measured_sweep(const Measurements& m) {
  MeasuredSweep s;
  for (const ReuseCase& c : m.reuse) {
    s.reuses.push_back(c.reuse);
    s.copy_first.push_back(median_of(c.copy_first_ms));
    s.zero_copy.push_back(median_of(c.zero_copy_ms));
  }
  s.crossover = crossover_reuse(s.reuses, s.copy_first, s.zero_copy);
  return s;
}

void add_reuse(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  auto s = b.section("reuse", "zero-copy against copying first, as reads repeat");
  std::vector<std::vector<Cell>> rows;
  for (std::size_t i = 0; i < m.reuse.size(); ++i) {
    const ReuseCase& c = m.reuse[i];
    s.metric(measured(fmt::format("reuse.{}.kernel", c.reuse), msg("reuse {reuse}: kernel alone", arg("reuse", c.reuse)), "ms",
                      c.kernel_ms));
    s.metric(measured(fmt::format("reuse.{}.copy_first", c.reuse), msg("reuse {reuse}: copy first", arg("reuse", c.reuse)), "ms",
                      c.copy_first_ms)
                 .with_prediction(predicted.copy_first_ms.at(i)));
    if (c.reuse != 1) {
      s.metric(measured(zero_copy_key(c.reuse), msg("reuse {reuse}: zero-copy", arg("reuse", c.reuse)), "ms", c.zero_copy_ms)
                   .with_prediction(predicted.zero_copy_ms.at(i)));
    }
    rows.push_back({data_cell(std::to_string(c.reuse)), metric_cell(fmt::format("reuse.{}.copy_first", c.reuse)),
                    metric_cell(zero_copy_key(c.reuse))});
  }
  s.table("reuse.table", {"reads per word", "copy first", "zero-copy"}, std::move(rows));
  s.fact("crossover", "zero-copy loses from", crossover_text(measured_sweep(m).crossover, p.reuse),
         msg("the model: {crossover}", arg("crossover", crossover_text(predicted.crossover, p.reuse))), false);
}

void add_sparse(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  const std::uint64_t lines = m.bytes / (kLineWords * sizeof(Word));
  const std::uint64_t read_bytes = m.sparse_reads * kLineWords * sizeof(Word);
  b.section("sparse", msg("a sparse read: one 128-byte line in {sparse}", arg("sparse", p.sparse)))
      .fact("reads", "lines read",
            msg("{read} of {lines}: {read_bytes} of {bytes}", arg("read", format_count(m.sparse_reads)),
                arg("lines", format_count(lines)), arg("read_bytes", format_bytes(read_bytes)),
                arg("bytes", format_bytes(m.bytes))),
            "a hash picks them, as a lookup would: copying first must copy every line")
      .metric(measured("sparse.kernel", "kernel alone (device memory)", "ms", m.sparse_kernel_ms))
      .metric(measured("sparse.copy_first", "copy first: the whole buffer", "ms", m.sparse_copy_first_ms)
                  .with_prediction(predicted.sparse_copy_first_ms))
      .metric(measured("sparse.zero_copy", "zero-copy: only the lines read", "ms", m.sparse_zero_copy_ms)
                  .with_prediction(predicted.sparse_zero_copy_ms))
      .metric(derived("sparse.speedup", "copy first / zero-copy", "x",
                      median_of(m.sparse_copy_first_ms) / median_of(m.sparse_zero_copy_ms))
                  .from({"sparse.copy_first", "sparse.zero_copy"}));
}

void add_verifies(ReportBuilder& b, const Measurements& m) {
  const char* why = "a wrong or poisoned word means a chunk was skipped, read before it arrived, or never written back";
  b.verify("explicit_results", m.explicit_words, "explicit copies", why)
      .verify("on_demand_results", m.on_demand_words, "managed memory, on demand", why)
      .verify("prefetched_results", m.prefetched_words, "managed memory, prefetched", why)
      .verify("copy_first_results", m.copy_first_words, "copy first, every reuse and the sparse read", why)
      .verify("zero_copy_results", m.zero_copy_words, "zero-copy, every reuse and the sparse read", why);
}

void add_zero_copy_expect(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  const MeasuredSweep sweep = measured_sweep(m);
  const bool wins_once = sweep.zero_copy.front() < sweep.copy_first.front();
  const Message at_one = msg("{zero_copy} against {copy_first} ms", arg("zero_copy", format_number(sweep.zero_copy.front())),
                             arg("copy_first", format_number(sweep.copy_first.front())));
  if (p.reuse == 1) {
    b.expect("zero_copy_wins_once", wins_once,
             msg("zero-copy beats copying first when each word is read once ({times})", arg("times", at_one)),
             "it crosses the bus once each way and overlaps both directions and the kernel by itself")
        .headline_check("zero_copy_wins_once");
    return;
  }
  b.expect("zero_copy_crossover", wins_once && sweep.crossover.has_value(),
           msg("zero-copy wins at reuse 1 ({times}) and loses from {crossover} on (model: {model})", arg("times", at_one),
               arg("crossover", crossover_text(sweep.crossover, p.reuse)),
               arg("model", crossover_text(predicted.crossover, p.reuse))),
           "every zero-copy read crosses the bus, a read of a copy does not; a GPU that kept host memory in its "
           "caches, or a bus faster than its copy engines, would move the crossover")
      .depends_on({"way.zero_copy", "reuse.1.copy_first"})
      .headline_check("zero_copy_crossover");
}

}  // namespace

void add_access(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  add_reuse(b, p, m, predicted);
  add_sparse(b, p, m, predicted);
}

void add_checks(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  add_verifies(b, m);
  const WayRatios r = way_ratios(m);
  b.expect("prefetch_beats_on_demand", r.prefetched <= kPrefetchedMaxShareOfOnDemand * r.on_demand,
           msg("prefetched managed memory takes {share}% of the on-demand time (at most {limit}%), {ratio}× the "
               "explicit copies'",
               arg("share", fmt::format("{:.0f}", 100 * r.prefetched / r.on_demand)),
               arg("limit", fmt::format("{:.0f}", 100 * kPrefetchedMaxShareOfOnDemand)),
               arg("ratio", fmt::format("{:.2f}", r.prefetched))),
           "a prefetch moves the pages before any warp touches them, so no fault stops a kernel; the driver still "
           "does part of each migration's work on the host (see the enqueue times), which the copies do not")
      .depends_on({"way.prefetched", "way.on_demand"})
      .headline_check("prefetch_beats_on_demand");
  b.expect("on_demand_is_slower", r.on_demand >= kOnDemandMinSlowdown,
           msg("on demand takes {ratio}× the explicit copies' time (at least {limit}×)",
               arg("ratio", fmt::format("{:.2f}", r.on_demand)), arg("limit", fmt::format("{:.1f}", kOnDemandMinSlowdown))),
           "each fault stops the faulting warps until the driver has moved the page; a system whose GPU reads host "
           "memory in place (ATS) or migrates in large blocks comes closer to the copies")
      .depends_on({"way.on_demand", "way.explicit"})
      .headline_check("on_demand_is_slower");
  add_zero_copy_expect(b, p, m, predicted);
  const double sparse_share = median_of(m.sparse_zero_copy_ms) / median_of(m.sparse_copy_first_ms);
  b.expect("sparse_favours_zero_copy", sparse_share <= kSparseZeroCopyMaxShare,
           msg("reading one line in {sparse}, zero-copy takes {share}% of copying the whole buffer first",
               arg("sparse", p.sparse), arg("share", fmt::format("{:.0f}", 100 * sparse_share))),
           "zero-copy moves only the lines read; with a dense read (a small --sparse) copying first wins again")
      .depends_on({"sparse.copy_first", "sparse.zero_copy"});
}

}  // namespace cudalab::unified_memory
