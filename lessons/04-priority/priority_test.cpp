// Lesson 04 without a GPU: its flags, the scheduler predictions, and every check of its report
// decided from made-up measurements.
#include <gtest/gtest.h>

#include <stdexcept>

#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab::priority;

using cudalab::testing_support::check_of;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return cudalab::testing_support::parse_params(flags(), std::move(args)); }
}  // namespace

TEST(PriorityFlags, DefaultsAndGoodValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.waves, 20);
  EXPECT_EQ(d.options.block_us, 100);
  EXPECT_EQ(d.options.urgent_blocks, 8);
  EXPECT_FALSE(d.options.priority.has_value());

  const Parsed p = parse({"--waves", "100", "--block-us", "10", "--urgent-blocks", "1024", "--priority", "-3"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.waves, 100);
  EXPECT_EQ(p.options.block_us, 10);
  EXPECT_EQ(p.options.urgent_blocks, 1024);
  EXPECT_EQ(p.options.priority, -3);
}

TEST(PriorityFlags, PrioritiesOutsideTheDeviceRangeAreAcceptedForCudaToClamp) {
  for (const char* value : {"-100", "7", "0", "1000", "-1000"}) {
    const Parsed p = parse({"--priority", value});
    EXPECT_EQ(p.error, "") << value;
    EXPECT_EQ(p.options.priority, std::stoi(value)) << value;
  }
}

TEST(PriorityFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--waves", "0"}, "--waves"},          {{"--waves", "-1"}, "--waves"},
      {{"--waves", "101"}, "--waves"},        {{"--waves", "many"}, "--waves"},
      {{"--waves", "2.5"}, "--waves"},        {{"--block-us", "0"}, "--block-us"},
      {{"--block-us", "9"}, "--block-us"},    {{"--block-us", "5001"}, "--block-us"},
      {{"--block-us", "100us"}, "--block-us"}, {{"--block-us", "-5"}, "--block-us"},
      {{"--urgent-blocks", "0"}, "--urgent-blocks"}, {{"--urgent-blocks", "1025"}, "--urgent-blocks"},
      {{"--urgent-blocks", "x"}, "--urgent-blocks"}, {{"--priority", "high"}, "--priority"},
      {{"--priority", "-1.5"}, "--priority"},  {{"--priority", "99999999999"}, "--priority"},
      {{"--priority", "1e2"}, "--priority"},
  };
  for (const auto& [args, flag] : cases) {
    const Parsed p = parse(args);
    EXPECT_NE(p.error.find(flag), std::string::npos) << args[0] << " " << args[1] << " -> " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
  EXPECT_NE(parse({"--waves", "0"}).error.find("1 to 100"), std::string::npos);
}

TEST(PriorityModel, BackgroundFillsEverySmForEachWave) {
  EXPECT_EQ(background_block_count(132, 8, 20), 132 * 8 * 20);
  EXPECT_EQ(background_block_count(1, 1, 1), 1);
  EXPECT_THROW(background_block_count(0, 8, 20), std::invalid_argument);
  EXPECT_THROW(background_block_count(132, 8, 0), std::invalid_argument);
  EXPECT_THROW(background_block_count(100000, 32, 1000), std::invalid_argument);
}

TEST(PriorityModel, SamePriorityWaitsForTheRestOfTheBackground) {
  EXPECT_DOUBLE_EQ(predict_same_priority_latency_us(2000, 15, 5), 1990);
  EXPECT_DOUBLE_EQ(predict_same_priority_latency_us(2000, 0, 5), 2005);
  EXPECT_DOUBLE_EQ(predict_same_priority_latency_us(2000, 2500, 5), 5);  // background already done
}

TEST(PriorityModel, HighPriorityWaitsForTheCurrentWaveOnly) {
  // 20 waves of 100 us; enqueued 15 us in: 85 us left of wave 1.
  EXPECT_DOUBLE_EQ(predict_high_priority_latency_us(2000, 20, 15, 5), 90);
  // Enqueued 230 us in: wave 3 has 70 us left.
  EXPECT_NEAR(predict_high_priority_latency_us(2000, 20, 230, 5), 75, 1e-9);
  EXPECT_DOUBLE_EQ(predict_high_priority_latency_us(2000, 20, 0, 5), 105);
  EXPECT_DOUBLE_EQ(predict_high_priority_latency_us(2000, 20, 2000, 5), 5);
  EXPECT_DOUBLE_EQ(predict_high_priority_latency_us(2000, 0, 10, 5), 5);
  // One wave: high and same priority predict the same wait.
  EXPECT_DOUBLE_EQ(predict_high_priority_latency_us(100, 1, 15, 5), predict_same_priority_latency_us(100, 15, 5));
}

TEST(PriorityModel, HighPriorityIsAtMostHalfOfSameWithTheDefaults) {
  const double same = predict_same_priority_latency_us(20 * 100, 15, 5);
  const double high = predict_high_priority_latency_us(20 * 100, 20, 15, 5);
  EXPECT_LE(high, 0.5 * same);
}

namespace {

// A made-up run on a 132-SM device: 20 waves of 100 us, the urgent kernel 5 us alone.
Measurements made_up_run(double same_latency_us, double high_latency_us) {
  Measurements m;
  m.least = 0;
  m.greatest = -5;
  m.requested = -5;
  m.granted = -5;
  m.sm_count = 132;
  m.blocks_per_sm = 8;
  m.background_blocks = 132 * 8 * 20;
  m.alone_us = {5, 5, 6};
  for (int i = 0; i < 3; ++i) {
    m.same.push_back({same_latency_us, 15, 2000});
    m.high.push_back({high_latency_us, 15, 2000});
  }
  m.background.add(100, 100);
  m.urgent.add(10, 10);
  // The lecture's demo in 4 rounds of blocks: 1 ms and 2 ms alone.
  m.lecture_blocks = 4096;
  m.lecture_blocks_per_sm = 8;
  m.lecture_short_alone_ms = {1.0, 1.0, 1.1};
  m.lecture_long_alone_ms = {2.0, 2.0, 2.1};
  m.lecture_as_given = {{1.5, 3.0}, {1.5, 3.0}, {1.5, 3.0}};
  m.lecture_swapped = {{3.0, 2.0}, {3.0, 2.0}, {3.0, 2.0}};
  m.lecture_results.add(1000, 1000);
  return m;
}


}  // namespace

TEST(PriorityReport, HighPriorityCheckPassesAtHalfAndFailsAbove) {
  const Params p;
  const Measurements good = made_up_run(1990, 90);
  const auto r = build_report(p, good, predict(p, good));
  EXPECT_TRUE(check_of(r, "high_priority_at_most_half").passed);
  EXPECT_TRUE(r.verify_passed());
  EXPECT_EQ(r.headline.en(), "urgent latency 1990 us -> 90 us at priority -5");
  EXPECT_DOUBLE_EQ(*r.find_metric("urgent.same_priority")->predicted, 1990);
  EXPECT_DOUBLE_EQ(*r.find_metric("urgent.high_priority")->predicted, 90);

  const Measurements barely = made_up_run(1000, 500);
  EXPECT_TRUE(check_of(build_report(p, barely, predict(p, barely)), "high_priority_at_most_half").passed);
  const Measurements no_gain = made_up_run(1000, 501);
  EXPECT_FALSE(check_of(build_report(p, no_gain, predict(p, no_gain)), "high_priority_at_most_half").passed);
}

TEST(PriorityReport, AWrongElementFailsVerify) {
  const Params p;
  Measurements m = made_up_run(1990, 90);
  m.urgent.add(9, 10);
  const auto r = build_report(p, m, predict(p, m));
  EXPECT_FALSE(check_of(r, "urgent_results").passed);
  EXPECT_TRUE(check_of(r, "background_results").passed);
  EXPECT_FALSE(r.verify_passed());
}

TEST(PriorityReport, PriorityParamIsStableOnlyWhenGiven) {
  Params p;
  const Measurements m = made_up_run(1990, 90);
  auto param = [](const cudalab::Report& r) {
    for (const auto& q : r.params) {
      if (q.name == "priority") return q;
    }
    throw std::out_of_range("priority");
  };
  EXPECT_FALSE(param(build_report(p, m, predict(p, m))).stable);
  EXPECT_EQ(param(build_report(p, m, predict(p, m))).value, "-5");
  p.priority = -3;
  EXPECT_TRUE(param(build_report(p, m, predict(p, m))).stable);
}

TEST(PriorityModel, TheLecturesDemoRoundByRound) {
  EXPECT_EQ(rounds_of_blocks(4096, 132, 8), 4);
  EXPECT_EQ(rounds_of_blocks(4096, 92, 6), 8);
  EXPECT_EQ(rounds_of_blocks(1, 132, 8), 1);
  EXPECT_EQ(rounds_of_blocks(4096, 0, 0), 4096);
  // The short kernel more urgent: one round of the long kernel, then itself.
  const LectureSample given = predict_lecture_as_given(1.0, 2.0, 4);
  EXPECT_DOUBLE_EQ(given.short_ms, 1.5);
  EXPECT_DOUBLE_EQ(given.long_ms, 3.0);
  // Swapped: the short kernel waits for every block of the long one.
  const LectureSample swapped = predict_lecture_swapped(1.0, 2.0);
  EXPECT_DOUBLE_EQ(swapped.short_ms, 3.0);
  EXPECT_DOUBLE_EQ(swapped.long_ms, 2.0);
  // The L20 of the lecture: 8 rounds, and the low / high ratio comes out near its 2.34.
  const LectureSample l20 = predict_lecture_as_given(1.0, 2.0, 8);
  EXPECT_NEAR(l20.long_ms / l20.short_ms, 2.4, 1e-9);
}

namespace {
bool lecture_check(const Measurements& m, const std::string& key) {
  const Params p;
  return check_of(build_report(p, m, predict(p, m)), key).passed;
}
}  // namespace

TEST(PriorityReport, TheLecturesDemoChecks) {
  Measurements m = made_up_run(1990, 90);
  EXPECT_TRUE(lecture_check(m, "lecture_results"));
  EXPECT_TRUE(lecture_check(m, "lecture_work_ratio_is_two"));
  EXPECT_TRUE(lecture_check(m, "priority_moves_the_short_kernel"));
  const Params p;
  const auto r = build_report(p, m, predict(p, m));
  EXPECT_DOUBLE_EQ(*r.find_metric("lecture.given.short")->predicted, 1.5);
  EXPECT_DOUBLE_EQ(*r.find_metric("lecture.swapped.short")->predicted, 3.0);
  EXPECT_DOUBLE_EQ(r.find_metric("lecture.given.ratio")->samples.at(0), 2.0);
  EXPECT_DOUBLE_EQ(r.find_metric("lecture.swapped.ratio")->samples.at(0), 1.5);

  m.lecture_results.add(999, 1000);
  EXPECT_FALSE(lecture_check(m, "lecture_results"));
  EXPECT_FALSE(build_report(p, m, predict(p, m)).verify_passed());

  m = made_up_run(1990, 90);
  m.lecture_long_alone_ms = {2.2, 2.2, 2.2};  // 2.2x: still the work ratio
  EXPECT_TRUE(lecture_check(m, "lecture_work_ratio_is_two"));
  m.lecture_long_alone_ms = {2.3, 2.3, 2.3};
  EXPECT_FALSE(lecture_check(m, "lecture_work_ratio_is_two"));
  m.lecture_long_alone_ms = {1.7, 1.7, 1.7};
  EXPECT_FALSE(lecture_check(m, "lecture_work_ratio_is_two"));

  m = made_up_run(1990, 90);
  // If priority did nothing, the short kernel would take as long on either stream.
  m.lecture_as_given = m.lecture_swapped;
  EXPECT_FALSE(lecture_check(m, "priority_moves_the_short_kernel"));
  for (auto& s : m.lecture_as_given) s.short_ms = 0.75 * 3.0;
  EXPECT_TRUE(lecture_check(m, "priority_moves_the_short_kernel"));
  for (auto& s : m.lecture_as_given) s.short_ms = 0.76 * 3.0;
  EXPECT_FALSE(lecture_check(m, "priority_moves_the_short_kernel"));
}

TEST(PriorityReport, TheLectureSectionCarriesTheMeasuredSide) {
  const Params p;
  const Measurements m = made_up_run(1990, 90);
  const auto r = build_report(p, m, predict(p, m));
  for (const auto& s : r.sections) {
    if (s.key != "lecture") continue;
    ASSERT_EQ(s.tables.size(), 1u);
    EXPECT_EQ(s.tables[0].rows[0][2].text.en(), "0 to -5");
    EXPECT_EQ(s.tables[0].rows[1][2].metric, "lecture.given.short");
    return;
  }
  ADD_FAILURE() << "no lecture section";
}
