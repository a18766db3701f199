// Issue 15 without a GPU: outliers, noise, adaptive repetition and the classroom preflight,
// each decided from made-up samples and snapshots.
#include <gtest/gtest.h>

#include <cmath>

#include "common/gpu/timing.hpp"
#include "common/gpu/preflight.hpp"
#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::slug_of;

TEST(Noise, OutliersAreBeyondThreeScaledMadsAndLeaveTheInlierSpread) {
  // Lesson 05's pattern: steady ~50 us callbacks and one 3.5 ms straggler.
  const std::vector<double> latency = {50, 52, 49, 51, 50, 3500, 53, 48, 50, 51};
  const Summary s = summarize(latency);
  ASSERT_EQ(s.outliers.size(), 1u);
  EXPECT_EQ(s.outliers[0], 5u);
  EXPECT_GT(s.spread, 60.0);               // (max - min) / median is ruled by the straggler
  EXPECT_NEAR(s.inlier_spread, 5.0 / 50.5, 1e-9);  // the rest spread 48..53
}

TEST(Noise, IdenticalSamplesHaveNoOutliersAndNoSpread) {
  const Summary s = summarize({7, 7, 7, 7});
  EXPECT_TRUE(s.outliers.empty());
  EXPECT_EQ(s.inlier_spread, 0.0);
}

TEST(Noise, MetricIsNoisyOnlyBeyondItsTolerance) {
  Metric steady = measured("a", "a", "ms", {1.00, 1.02, 0.99, 1.01, 1.00});
  EXPECT_FALSE(steady.noisy());
  Metric wide = measured("b", "b", "ms", {1.0, 1.3, 0.8, 1.1, 1.2});
  EXPECT_TRUE(wide.noisy());
  EXPECT_FALSE(std::move(wide).with_spread_tolerance(0.6).noisy());
  EXPECT_FALSE(measured("c", "c", "ms", {1.0, 2.0}).noisy()) << "two samples say nothing about noise";
}

// Lesson 05's reference run: a copy after a kernel with 2 of its 5 samples at 8× the median, and
// a sync loop with 6 of its 15 samples set aside. Their inlier spreads (6%, 5%) look steady; the
// samples left over describe only one of two modes, so both are noisy.
TEST(Noise, MoreThanAFifthOfTheSamplesFarOutIsNoisyWhateverTheInlierSpread) {
  const Metric copy = measured("cross.kernel_copy", "copy", "us", {24.352, 25.92, 24.352, 207.552, 225.184});
  const Summary cs = copy.summary();
  EXPECT_EQ(cs.outliers.size(), 2u);
  EXPECT_LT(cs.inlier_spread, copy.tolerance());
  EXPECT_TRUE(copy.noisy());
  EXPECT_EQ(copy.noise_reason().en(), "2 of its 5 samples are outliers far from the rest, more than one in 5");

  const Metric sync = measured("pipeline.sync_loop", "sync", "ms",
                               {39.054, 47.666, 38.126, 38.428, 40.279, 40.022, 46.317, 45.966, 45.472, 45.904, 46.517,
                                45.972, 45.344, 45.419, 51.324});
  EXPECT_EQ(sync.summary().outliers.size(), 6u);
  EXPECT_LT(sync.summary().inlier_spread, sync.tolerance());
  EXPECT_TRUE(sync.noisy());

  // One far sample in five is a straggler, not a mode: steady (exactly a fifth is not more).
  EXPECT_FALSE(measured("one", "one", "us", {24.3, 25.9, 24.3, 207.5, 24.8}).noisy());
  EXPECT_TRUE(too_many_outliers(2, 9));
  EXPECT_FALSE(too_many_outliers(2, 10));
}

// Lesson 02's pinned 16 MiB copies: 8 of 20 samples are outliers by MADs, because the bulk agrees
// to 0.1%, but the furthest is 1.8% from the median; inside the ±5% a figure may keep, they
// change nothing a reader sees, and the figure stays steady.
TEST(Noise, OutliersInsideTheToleranceDoNotMakeAFigureNoisy) {
  const std::vector<double> bandwidth = {54.79,  54.79, 54.802, 54.796, 54.073, 54.022, 54.785, 54.347, 53.801, 54.574,
                                         53.978, 54.28, 54.528, 53.735, 54.756, 54.773, 54.744, 54.785, 54.767, 54.779};
  const Metric m = measured("bw", "pinned H2D", "GB/s", bandwidth);
  const Summary s = m.summary();
  EXPECT_EQ(s.outliers.size(), 8u);
  EXPECT_EQ(wide_outliers(bandwidth, s, m.tolerance()), 0u);
  EXPECT_FALSE(m.noisy());
  EXPECT_EQ(wide_outliers(bandwidth, s, 0.02), 5u) << "held to ±1%, five of the 20 are far out";
  EXPECT_TRUE(std::move(measured("bw", "pinned H2D", "GB/s", bandwidth)).with_spread_tolerance(0.02).noisy());
}

namespace {

// The text form, 100 columns wide, of a lesson's report with one figure and an expect check
// computed from it.
std::string text_of_one_figure(int lesson, Metric figure) {
  ReportBuilder b({});
  const std::string key = figure.key;
  b.section("s", "section", "").metric(std::move(figure));
  b.expect("fast", true, "it is fast").depends_on({key});
  Report r = std::move(b).build();
  r.lesson_number = lesson;
  r.lesson_slug = slug_of(lesson);
  TextStyle style;
  style.width = 100;
  return render_text(r, style);
}

}  // namespace

// The text says which rule made a figure noisy, and an expect check that depends on it says so.
TEST(Noise, TextSaysWhenOutliersMadeAFigureNoisy) {
  const std::string text =
      text_of_one_figure(5, measured("copy", "copy after kernel", "us", {24.352, 25.92, 24.352, 207.552, 225.184}));
  EXPECT_NE(text.find("noisy, 2 outliers"), std::string::npos) << text;
  EXPECT_NE(text.find("copy after kernel is noisy (2 of its 5 samples are outliers far from the rest, more"),
            std::string::npos) << text;
}

TEST(Noise, TextSaysNoisyAndTheDependentCheckSaysWhyItMayNotHold) {
  const std::string text = text_of_one_figure(2, measured("copy", "pinned H2D", "GB/s", {40, 55, 50, 30, 52}));
  EXPECT_NE(text.find("±25.0%  noisy"), std::string::npos) << text;
  EXPECT_NE(text.find("pinned H2D is noisy"), std::string::npos) << text;
  EXPECT_NE(text.find("this verdict"), std::string::npos) << text;
}

TEST(Noise, ADerivedFigureIsAsNoisyAsWhatItIsComputedFrom) {
  ReportBuilder b({});
  b.section("s", "section", "")
      .metric(measured("seq", "sequential", "ms", {3.8, 3.8, 3.81, 3.79, 3.8}))
      .metric(measured("ovl", "overlapped", "ms", {1.75, 1.9, 2.1, 1.74, 1.76, 2.0}))
      .metric(derived("speedup", "speed-up", "x", 3.8 / 1.9).from({"seq", "ovl"}))
      .metric(derived("steady", "steady ratio", "x", 1.0).from({"seq"}));
  b.expect("faster", true, "overlapped is faster").depends_on({"speedup"});
  Report r = std::move(b).build();
  r.lesson_number = 3;
  r.lesson_slug = slug_of(3);
  const Metric* speedup = r.find_metric("speedup");
  ASSERT_NE(speedup, nullptr);
  EXPECT_FALSE(speedup->noisy_samples()) << "one computed value has no spread of its own";
  EXPECT_TRUE(speedup->noisy());
  EXPECT_EQ(speedup->noisy_inputs, std::vector<std::string>{"ovl"});
  EXPECT_FALSE(r.find_metric("steady")->noisy());

  TextStyle style;
  style.width = 100;
  const std::string text = render_text(r, style);
  EXPECT_NE(text.find("speed-up is computed from overlapped; overlapped is noisy"), std::string::npos) << text;

  // Saved and shown again, the verdict and its reason survive.
  const Report back = report_from_json(report_to_json(r));
  EXPECT_TRUE(back.find_metric("speedup")->noisy());
  EXPECT_EQ(render_text(back, style), text);

  // The verdict is derived from the samples on reading, not taken from the file.
  nlohmann::json claimed = report_to_json(r);
  for (auto& section : claimed["sections"]) {
    for (auto& metric : section["metrics"]) {
      if (metric["key"] == "steady") metric["noisy_inputs"] = {"seq"};
    }
  }
  EXPECT_FALSE(report_from_json(claimed).find_metric("steady")->noisy());
}

TEST(Noise, ADerivedFigureFromAMetricThatDoesNotExistIsALessonBug) {
  ReportBuilder b({});
  b.section("s", "section", "").metric(derived("speedup", "speed-up", "x", 2.0).from({"nope"}));
  EXPECT_THROW(std::move(b).build(), std::logic_error);
}

TEST(Noise, JsonCarriesSpreadOutliersAndNoisyAndReadsBack) {
  Report r;
  Section s;
  s.key = "x";
  s.metrics.push_back(measured("m", "m", "us", {50, 52, 49, 51, 50, 3500}).with_spread_tolerance(0.2));
  r.sections.push_back(s);
  r.environment.push_back({"other_processes", false, "1 other process worked on the GPU"});
  const auto j = report_to_json(r);
  const auto& m = j["sections"][0]["metrics"][0];
  EXPECT_EQ(m["outliers"].size(), 1u);
  EXPECT_EQ(m["outliers"][0], 5);
  EXPECT_FALSE(m["noisy"].get<bool>());
  EXPECT_DOUBLE_EQ(m["spread_tolerance"].get<double>(), 0.2);
  EXPECT_EQ(j["environment"][0]["key"], "other_processes");
  auto back = j;
  back["schema"] = kReportSchema;
  const Report again = report_from_json(back);
  EXPECT_DOUBLE_EQ(*again.sections[0].metrics[0].spread_tolerance, 0.2);
  ASSERT_EQ(again.environment.size(), 1u);
  EXPECT_FALSE(again.environment[0].ok);
}

TEST(AdaptiveRepetition, StopsWhenTheMedianIsPinnedDownOrTheBudgetIsSpent) {
  Repetitions reps{2, 5, true};
  EXPECT_TRUE(needs_more_samples({1, 1, 1}, reps)) << "fewer than --repeat";
  EXPECT_FALSE(needs_more_samples({1, 1, 1, 1, 1}, reps)) << "steady: the CI is zero";
  EXPECT_TRUE(needs_more_samples({1, 1.3, 0.8, 1.1, 0.9}, reps)) << "wide: take more";
  const std::vector<double> ten_wide = {1, 1.3, 0.8, 1.1, 0.9, 1, 1.3, 0.8, 1.1, 0.9};
  EXPECT_FALSE(needs_more_samples(ten_wide, reps)) << "twice --repeat is the cap";
  EXPECT_FALSE(needs_more_samples({10, 13, 8, 11, 19}, reps)) << "60 ms of GPU time is the budget";
  reps.adaptive = false;
  EXPECT_FALSE(needs_more_samples({1, 1.3, 0.8, 1.1, 0.9}, reps)) << "--repeat given: exactly that many";
}

TEST(AdaptiveRepetition, WarmupSettlesWhenTheLastThreeAgree) {
  EXPECT_FALSE(settled({5.0, 1.2, 1.0}));
  EXPECT_TRUE(settled({5.0, 1.01, 1.0, 0.99}));
  EXPECT_FALSE(settled({1.0, 1.0}));
  EXPECT_TRUE(std::isinf(median_ci_relative_halfwidth({1, 2, 3})));
}

TEST(Classroom, AnotherProcessOnTheGpuIsCalledOut) {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  ClassroomSnapshot s;
  s.before.compute_processes = 2;  // this process and one other
  s.after.compute_processes = 1;
  s.after.sm_clock_mhz = 1980;
  s.after.sm_clock_max_mhz = 1980;
  s.link_after = PcieLink{5, 16, 5, 16};
  s.host_load = 0.5;
  s.host_cpus = 16;
  const auto items = classroom_items(d, s);
  ASSERT_GE(items.size(), 5u);
  EXPECT_EQ(items[0].key, "other_processes");
  EXPECT_FALSE(items[0].ok);
  EXPECT_NE(items[0].summary.en().find("1 other process"), std::string::npos);
  for (std::size_t i = 1; i < items.size(); ++i) EXPECT_TRUE(items[i].ok) << items[i].summary;
}

TEST(Classroom, AStudentWhoCameAndWentWhileTheLessonMeasuredIsCalledOut) {
  DeviceInfo d;
  ClassroomSnapshot s;
  s.before.compute_processes = 1;  // only this process when the lesson started ...
  s.after.compute_processes = 1;   // ... and when it ended
  EXPECT_TRUE(classroom_items(d, s)[0].ok);
  s.busiest_during.compute_processes = 2;  // but the watch saw another one in between
  const auto items = classroom_items(d, s);
  EXPECT_FALSE(items[0].ok);
  EXPECT_NE(items[0].summary.en().find("1 other process worked on the GPU"), std::string::npos) << items[0].summary;
}

TEST(Classroom, SlowdownNarrowLinkAndBusyHostAreCalledOut) {
  DeviceInfo d;
  ClassroomSnapshot s;
  s.after.compute_processes = 1;
  s.after.sm_clock_mhz = 1200;
  s.after.sm_clock_max_mhz = 1980;
  s.after.clock_event_reasons = 0x40;  // HW thermal slowdown
  s.link_after = PcieLink{4, 8, 5, 16};
  s.host_load = 30;
  s.host_cpus = 16;
  for (const auto& item : classroom_items(d, s)) {
    if (item.key == "clocks" || item.key == "pcie_link" || item.key == "host_load") {
      EXPECT_FALSE(item.ok) << item.summary;
    }
  }
  s.after.clock_event_reasons = 0x1;  // idle is not a slowdown
  for (const auto& item : classroom_items(d, s)) {
    if (item.key == "clocks") {
      EXPECT_TRUE(item.ok) << item.summary;
    }
  }
}

TEST(Classroom, WithoutNvmlEveryItemSaysUnknownAndNothingIsFlagged) {
  DeviceInfo d;
  const auto items = classroom_items(d, ClassroomSnapshot{});
  for (const auto& item : items) EXPECT_TRUE(item.ok) << item.summary;
  EXPECT_NE(items[0].summary.en().find("unknown"), std::string::npos);
}
