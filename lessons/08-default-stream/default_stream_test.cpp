// Lesson 08 without a GPU: its flags, the bounds of each case, and every check of its report
// decided from made-up measurements.
#include <gtest/gtest.h>

#include <stdexcept>

#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab::default_stream;
using cudalab::Tally;

using cudalab::testing_support::check_of;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return cudalab::testing_support::parse_params(flags(), std::move(args)); }

Case made_up(double total_us) {
  Case c;
  c.total_us = {total_us, total_us, total_us * 1.01};
  c.results.add(512, 512);
  return c;
}

// Kernels of 100 us, 4 per lane: stream 0 spans 400 (overlapped) to 900 us (its staircase), the
// two-lane cases 400 to 800 us (in a row). Every broken way lost the overlap, every fix kept it.
Measurements good() {
  Measurements m;
  m.alone = made_up(100);
  m.stream0_blocking = made_up(910);
  m.stream0_nonblocking = made_up(410);
  m.threads_legacy = made_up(810);
  m.threads_per_thread = made_up(420);
  m.per_thread_beside_stream0 = made_up(805);
  m.per_thread_beside_blocking = made_up(415);
  m.alloc_sync = made_up(900);
  m.alloc_async = made_up(430);
  return m;
}


cudalab::Report report_of(const Measurements& m) {
  const Params p;
  return build_report(p, m, predict(p, m));
}

// A metric the report must have (a test failure, not a crash, when it does not).
const cudalab::Metric& metric_of(const cudalab::Report& r, const std::string& key) {
  const cudalab::Metric* m = r.find_metric(key);
  if (m == nullptr) throw std::logic_error("the report has no metric " + key);
  return *m;
}

bool passed(const Measurements& m, const std::string& key) {
  const Params p;
  return check_of(build_report(p, m, predict(p, m)), key).passed;
}
}  // namespace

TEST(DefaultStreamFlags, DefaultsAndBadValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.kernel_us, 200);
  EXPECT_EQ(d.options.kernels, 4);
  const Parsed p = parse({"--kernel-us", "5000", "--kernels", "16"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.kernel_us, 5000);
  EXPECT_EQ(p.options.kernels, 16);
  for (const auto& [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--kernel-us", "19"}, "--kernel-us"}, {{"--kernel-us", "5001"}, "--kernel-us"},
           {{"--kernel-us", "fast"}, "--kernel-us"}, {{"--kernels", "0"}, "--kernels"},
           {{"--kernels", "17"}, "--kernels"}, {{"--kernels", "2.5"}, "--kernels"}}) {
    const Parsed bad = parse(args);
    EXPECT_NE(bad.error.find(flag), std::string::npos) << args[0] << " " << args[1] << " -> " << bad.error;
    EXPECT_EQ(bad.error.find('\n'), std::string::npos) << bad.error;
  }
}

TEST(DefaultStreamModel, StreamZeroIsABarrierNotATotalOrder) {
  // A0 | S0 | B0+A1 | S1 | B1+A2 | S2 | B2+A3 | S3 | B3
  EXPECT_EQ(stream0_staircase_lengths(4), 9);
  EXPECT_EQ(stream0_staircase_lengths(1), 3);  // one round: all three in a row
  const Bounds b = bounds(100, 4, 9);
  EXPECT_DOUBLE_EQ(b.overlapped_us, 400);
  EXPECT_DOUBLE_EQ(b.lost_us, 900);
  EXPECT_DOUBLE_EQ(lost_share(400, b), 0.0);
  EXPECT_DOUBLE_EQ(lost_share(650, b), 0.5);
  EXPECT_DOUBLE_EQ(lost_share(1025, b), 1.25);  // host waits can push past the prediction
  EXPECT_DOUBLE_EQ(lost_share(100, bounds(100, 1, 1)), 0.0);  // nothing to lose
}

TEST(DefaultStreamModel, EachCasePredictsFromOneKernelAlone) {
  const Params p;
  const Prediction pr = predict(p, good());
  EXPECT_DOUBLE_EQ(pr.stream0_blocking_us, 900);
  EXPECT_DOUBLE_EQ(pr.stream0_nonblocking_us, 400);
  EXPECT_DOUBLE_EQ(pr.threads_legacy_us, 800);
  EXPECT_DOUBLE_EQ(pr.threads_per_thread_us, 400);
  EXPECT_DOUBLE_EQ(pr.alloc_sync_us, 800);
  EXPECT_DOUBLE_EQ(pr.alloc_async_us, 400);
  EXPECT_DOUBLE_EQ(predict(p, Measurements{}).stream0_blocking_us, 0);  // nothing measured, nothing predicted
}

TEST(DefaultStreamReport, EveryCheckPassesOnAGoodRun) {
  const Params p;
  const Measurements m = good();
  const auto r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(r.verify_passed());
  for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << c.key;
  EXPECT_EQ(r.checks.size(), 5u + 8u);
}

TEST(DefaultStreamReport, LostChecksFailWhenTheBrokenWayStillOverlaps) {
  Measurements m = good();
  m.stream0_blocking = made_up(700);  // (700 - 400) / 500 = 0.6 of the way: not lost
  EXPECT_FALSE(passed(m, "stream0_overlap_lost"));
  m.stream0_blocking = made_up(775);  // 0.75: lost, at the threshold
  EXPECT_TRUE(passed(m, "stream0_overlap_lost"));
  m.threads_legacy = made_up(500);
  EXPECT_FALSE(passed(m, "threads_overlap_lost"));
  m.alloc_sync = made_up(600);  // 0.5: neither
  EXPECT_FALSE(passed(m, "alloc_overlap_lost"));
}

TEST(DefaultStreamReport, KeptChecksFailWhenTheFixSerializes) {
  Measurements m = good();
  m.stream0_nonblocking = made_up(525);  // 0.25 of the way: kept, at the threshold
  EXPECT_TRUE(passed(m, "stream0_overlap_kept"));
  m.stream0_nonblocking = made_up(600);
  EXPECT_FALSE(passed(m, "stream0_overlap_kept"));
  m.threads_per_thread = made_up(800);
  EXPECT_FALSE(passed(m, "threads_overlap_kept"));
  m.alloc_async = made_up(550);
  EXPECT_FALSE(passed(m, "alloc_overlap_kept"));
}

TEST(DefaultStreamReport, AWrongElementFailsVerification) {
  const Params p;
  for (Case Measurements::*c : {&Measurements::alone, &Measurements::stream0_nonblocking,
                                &Measurements::threads_legacy, &Measurements::alloc_async}) {
    Measurements m = good();
    (m.*c).results = Tally{};
    (m.*c).results.add(511, 512);
    EXPECT_FALSE(build_report(p, m, predict(p, m)).verify_passed());
  }
}

TEST(DefaultStreamReport, PerThreadIsJudgedOnItsFastestRunAndItsQueuedRunsCounted) {
  const Params p;
  Measurements m = good();
  m.threads_per_thread.total_us = {810, 800, 800, 800, 410};  // one run side by side, four in a row
  const auto r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(check_of(r, "threads_overlap_kept").passed);
  for (const auto& s : r.sections) {
    for (const auto& metric : s.metrics) {
      if (metric.key == "threads.runs_in_a_row") {
        EXPECT_EQ(metric.samples.at(0), 4.0);
      }
    }
  }
  m.threads_per_thread.total_us = {810, 800, 520};  // (520 - 400) / 400 = 0.3: not side by side
  EXPECT_FALSE(passed(m, "threads_overlap_kept"));
  m.stream0_nonblocking.total_us = {900, 900, 410};  // the others stay judged on the median
  EXPECT_FALSE(passed(m, "stream0_overlap_kept"));
}

TEST(DefaultStreamModel, ARunThatLostLessThanHalfAKernelRanSideBySide) {
  const Bounds b = bounds(100, 4, 8);  // 400 side by side, 800 in a row
  // Measured on the lab H100 (200 us kernels): 813-821 side by side, then 1015, 1217, 1418 and
  // 1620 us: one to four kernel lengths lost. Here with 100 us kernels.
  const std::vector<double> totals = {405, 449, 451, 500, 600, 800, 398};
  EXPECT_EQ(runs_side_by_side(totals, b, 100), (std::vector<double>{405, 449, 398}));
  EXPECT_TRUE(runs_side_by_side({}, b, 100).empty());
}

TEST(DefaultStreamReport, PerThreadFigureComesFromTheRunsSideBySide) {
  Measurements m = good();
  m.threads_per_thread.total_us = {410, 800, 412, 600, 411, 409, 408};
  const auto r = report_of(m);
  const cudalab::Metric& kept = metric_of(r, "threads.kept");
  const cudalab::Metric& all = metric_of(r, "threads.per_thread_all");
  EXPECT_EQ(kept.samples, (std::vector<double>{410, 412, 411, 409, 408}));
  EXPECT_EQ(all.samples.size(), 7u);
  EXPECT_EQ(metric_of(r, "threads.runs_in_a_row").samples.at(0), 2.0);
  EXPECT_FALSE(kept.noisy());  // the slow mode is counted, not mixed into the figure
  EXPECT_TRUE(all.noisy());
  EXPECT_FALSE(r.disturbed());
}

TEST(DefaultStreamReport, PerThreadStreamWaitsForStreamZeroButNotForABlockingStream) {
  Measurements m = good();
  EXPECT_TRUE(passed(m, "perthread_overlap_lost"));
  EXPECT_TRUE(passed(m, "perthread_overlap_kept"));
  m.per_thread_beside_stream0 = made_up(420);  // a driver where it does not wait for stream 0
  EXPECT_FALSE(passed(m, "perthread_overlap_lost"));
  m.per_thread_beside_blocking = made_up(790);  // one where it waits for blocking streams too
  EXPECT_FALSE(passed(m, "perthread_overlap_kept"));
  Measurements wrong = good();
  wrong.per_thread_beside_blocking.results = Tally{};
  wrong.per_thread_beside_blocking.results.add(511, 512);
  const Params p;
  EXPECT_FALSE(build_report(p, wrong, predict(p, wrong)).verify_passed());
}

// Process 5 of five lone runs on the lab H100: the host drifted within the run. The cudaFree
// figure is the host's, allowed 20%; the same samples under the default 10% would be noisy.
TEST(DefaultStreamReport, TheHostBoundCudaFreeFigureMayDriftWithTheHost) {
  Measurements m = good();
  m.alloc_sync.total_us = {1869, 1908, 1852, 1853, 1844, 1757, 1746};
  const auto r = report_of(m);
  const cudalab::Metric& lost = metric_of(r, "alloc.lost");
  EXPECT_FALSE(lost.noisy());
  EXPECT_FALSE(r.disturbed());
  cudalab::Metric strict = lost;
  strict.spread_tolerance.reset();
  EXPECT_TRUE(strict.noisy()) << "two of seven are wide outliers under the default";
  m.alloc_sync.total_us = {1700, 2300, 1750, 2250, 1800, 2200, 1720};  // bimodal past 20% too
  EXPECT_TRUE(report_of(m).disturbed());
}
