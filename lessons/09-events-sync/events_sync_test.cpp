// Lesson 09 without a GPU: its flags, its models, and every check of its report decided from
// made-up measurements.
#include <gtest/gtest.h>

#include <stdexcept>

#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab::events_sync;

using cudalab::testing_support::check_of;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return cudalab::testing_support::parse_params(flags(), std::move(args)); }
}  // namespace

TEST(EventsSyncFlags, DefaultsAndGoodValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.kernel_us, 500);
  EXPECT_EQ(d.options.records, 256);
  EXPECT_EQ(d.options.producer_us, 100);
  EXPECT_EQ(d.options.elements, 1 << 20);
  const Parsed low = parse({"--kernel-us", "20", "--records", "8", "--producer-us", "0", "--elements", "1"});
  ASSERT_EQ(low.error, "");
  EXPECT_EQ(low.options.kernel_us, 20);
  EXPECT_EQ(low.options.producer_us, 0);
  const Parsed top =
      parse({"--kernel-us", "100000", "--records", "4096", "--producer-us", "100000", "--elements", "16777216"});
  ASSERT_EQ(top.error, "");
  EXPECT_EQ(top.options.elements, 1 << 24);
}

TEST(EventsSyncFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--kernel-us", "19"}, "--kernel-us"},       {{"--kernel-us", "100001"}, "--kernel-us"},
      {{"--kernel-us", "1ms"}, "--kernel-us"},      {{"--records", "7"}, "--records"},
      {{"--records", "4097"}, "--records"},         {{"--records", "many"}, "--records"},
      {{"--producer-us", "-1"}, "--producer-us"},   {{"--producer-us", "0.5"}, "--producer-us"},
      {{"--elements", "0"}, "--elements"},          {{"--elements", "16777217"}, "--elements"},
  };
  for (const auto& [args, flag] : cases) {
    const Parsed p = parse(args);
    EXPECT_NE(p.error.find(flag), std::string::npos) << args[0] << " " << args[1] << " -> " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
  EXPECT_NE(parse({"--kernel-us", "1"}).error.find("20 to 100000"), std::string::npos);
}

TEST(EventsSyncModel, OnlyBlockedWaitersAreExpectedToSaveCpu) {
  for (const char* key : {rows::kStreamSync, rows::kEventSync, rows::kDeviceSync, rows::kStreamQuery,
                          rows::kEventQuery, rows::kAuto, rows::kSpin, rows::kYield}) {
    EXPECT_DOUBLE_EQ(expected_cpu_share(key), 1.0) << key;
  }
  EXPECT_DOUBLE_EQ(expected_cpu_share(rows::kBlockingSync), 0.0);
  EXPECT_DOUBLE_EQ(expected_cpu_share(rows::kBlockingEvent), 0.0);
}

TEST(EventsSyncModel, HostChainGapIsWakeUpPlusLaunch) {
  EXPECT_DOUBLE_EQ(predict_host_chain_gap_us(5.0, 3.0), 8.0);
  EXPECT_DOUBLE_EQ(predict_host_chain_gap_us(-1.0, 3.0), 3.0);  // a watcher that saw the flag late
}

namespace {

WaitRow row(const char* key, double wake_us, double cpu_us, double wall_us) {
  WaitRow r{key, key, {}};
  for (int i = 0; i < 5; ++i) r.samples.push_back({wake_us, cpu_us, wall_us});
  return r;
}

// A made-up run of a 500 us kernel: spinning waits wake in 3 us and burn the whole wait,
// blocking ones wake in 30 us and burn almost nothing.
Measurements made_up_run() {
  Measurements m;
  for (int i = 0; i < 5; ++i) {
    m.timing.push_back({4.0, 515.0, 503.0, 500.0});
    m.records.push_back({0.85, 0.15, 0.20, 0.01, true});
    m.chain.push_back({2.0, 4.0, 12.0, 495.0});
  }
  for (const char* key : {rows::kStreamSync, rows::kEventSync, rows::kDeviceSync, rows::kStreamQuery,
                          rows::kEventQuery}) {
    m.waits.push_back(row(key, 3.0, 495.0, 500.0));
  }
  m.scheduling = {row(rows::kAuto, 3.0, 495.0, 500.0), row(rows::kSpin, 3.0, 495.0, 500.0),
                  row(rows::kYield, 4.0, 490.0, 500.0), row(rows::kBlockingSync, 30.0, 15.0, 530.0),
                  row(rows::kBlockingEvent, 28.0, 14.0, 528.0)};
  m.right.add(1000, 1000);
  m.wrong.add(0, 1000);
  m.wrong_stale = 1000;
  return m;
}


bool passes(const Measurements& m, const std::string& key) {
  const Params p;
  return check_of(build_report(p, m, predict(p, m)), key).passed;
}

WaitRow& find(std::vector<WaitRow>& rows, const char* key) {
  for (auto& r : rows) {
    if (r.key == key) return r;
  }
  throw std::out_of_range(key);
}

}  // namespace

TEST(EventsSyncModel, PredictionsComeFromTheSameRun) {
  const Measurements m = made_up_run();
  const Prediction pr = predict(Params{}, m);
  EXPECT_DOUBLE_EQ(pr.event_us, 500.0);
  EXPECT_DOUBLE_EQ(pr.host_chain_gap_us, 7.0);
  EXPECT_DOUBLE_EQ(predicted_cpu_us(pr.waits, rows::kStreamQuery), 500.0);
  EXPECT_DOUBLE_EQ(predicted_cpu_us(pr.scheduling, rows::kBlockingSync), 0.0);
  EXPECT_DOUBLE_EQ(predicted_cpu_us(pr.scheduling, "no such row"), 0.0);
  EXPECT_THROW(find_row(m.waits, "no such row"), std::out_of_range);
}

TEST(EventsSyncReport, AGoodRunPassesEveryCheck) {
  const Params p;
  const Measurements m = made_up_run();
  const auto r = build_report(p, m, predict(p, m));
  for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << c.key;
  EXPECT_TRUE(r.verify_passed());
}

TEST(EventsSyncReport, TimingChecks) {
  Measurements m = made_up_run();
  for (auto& s : m.timing) s.host_launch_us = 510.0;  // CUDA_LAUNCH_BLOCKING=1
  EXPECT_FALSE(passes(m, "host_clock_measures_the_launch"));
  m = made_up_run();
  for (auto& s : m.timing) s.event_us = 559.0;  // within 10% + 10 us of 500 us
  EXPECT_TRUE(passes(m, "events_measure_the_work"));
  for (auto& s : m.timing) s.event_us = 561.0;
  EXPECT_FALSE(passes(m, "events_measure_the_work"));
  m = made_up_run();
  for (auto& s : m.records) s.gpu_plain_us = 0.1;  // exactly half a timing record
  EXPECT_FALSE(passes(m, "plain_records_cheaper"));
}

TEST(EventsSyncReport, WaitChecks) {
  Measurements m = made_up_run();
  find(m.waits, rows::kEventQuery).samples[2].cpu_us = 495.0;  // one sample does not move the median
  EXPECT_TRUE(passes(m, "default_waits_spin"));
  for (auto& s : find(m.waits, rows::kDeviceSync).samples) s.cpu_us = 100.0;
  EXPECT_FALSE(passes(m, "default_waits_spin"));
  m = made_up_run();
  for (auto& s : find(m.waits, rows::kStreamSync).samples) s.wake_us = 60.0;
  EXPECT_FALSE(passes(m, "spin_wakes_fast"));
  m = made_up_run();
  for (auto& s : m.chain) s.gpu_wait_gap_us = 12.0;
  EXPECT_FALSE(passes(m, "gpu_wait_is_shorter"));
  m = made_up_run();
  for (auto& s : m.chain) s.host_wait_cpu_us = 30.0;  // a blocking-sync host wait
  EXPECT_FALSE(passes(m, "gpu_wait_frees_the_host"));
}

TEST(EventsSyncReport, SchedulingChecks) {
  Measurements m = made_up_run();
  m.scheduling_flags_applied = false;
  EXPECT_FALSE(passes(m, "flags_took_effect"));
  m = made_up_run();
  for (auto& s : find(m.scheduling, rows::kSpin).samples) s.cpu_us = 300.0;
  EXPECT_FALSE(passes(m, "spin_burns_the_wait"));
  m = made_up_run();
  for (auto& s : find(m.scheduling, rows::kBlockingSync).samples) s.cpu_us = 200.0;
  EXPECT_FALSE(passes(m, "blocking_sync_saves_cpu"));
  m = made_up_run();
  for (auto& s : find(m.scheduling, rows::kBlockingEvent).samples) s.cpu_us = 400.0;
  EXPECT_FALSE(passes(m, "blocking_event_saves_cpu"));
  m = made_up_run();
  for (auto& s : find(m.scheduling, rows::kBlockingSync).samples) s.wake_us = 2.0;
  EXPECT_FALSE(passes(m, "blocking_costs_latency"));
}

TEST(EventsSyncReport, TheWrongDependencyIsAnExpectAndTheRightOneAVerify) {
  Measurements m = made_up_run();
  m.wrong = {};
  m.wrong.add(1000, 1000);  // the race went the lucky way: the teaching case failed, not the run
  auto r = build_report(Params{}, m, predict(Params{}, m));
  EXPECT_FALSE(check_of(r, "dependency_done_wrong_is_wrong").passed);
  EXPECT_TRUE(r.verify_passed());
  m = made_up_run();
  m.right = {};
  m.right.add(999, 1000);
  r = build_report(Params{}, m, predict(Params{}, m));
  EXPECT_FALSE(check_of(r, "dependency_done_right").passed);
  EXPECT_FALSE(r.verify_passed());
}

TEST(EventsSyncReport, TheTradeOffTableHasOneRowPerFlag) {
  const Measurements m = made_up_run();
  const auto r = build_report(Params{}, m, predict(Params{}, m));
  for (const auto& s : r.sections) {
    if (s.key != "scheduling") continue;
    ASSERT_EQ(s.tables.size(), 1u);
    EXPECT_EQ(s.tables[0].rows.size(), 5u);
    return;
  }
  FAIL() << "no scheduling section";
}
