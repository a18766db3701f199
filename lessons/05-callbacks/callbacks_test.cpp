// Lesson 05 without a GPU: its flags, the clock calibration, the predictions, and every check of
// its report decided from made-up measurements.
#include <gtest/gtest.h>

#include <stdexcept>

#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab::callbacks;

using cudalab::testing_support::check_of;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return cudalab::testing_support::parse_params(flags(), std::move(args)); }
}  // namespace

TEST(CallbacksFlags, DefaultsAndGoodValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.callback_ms, 20);
  EXPECT_EQ(d.options.elements, 65536);
  EXPECT_EQ(d.options.batches, 20);
  EXPECT_EQ(d.options.batch_us, 500);
  EXPECT_EQ(d.options.batch_elements, 262144);
  const Parsed p = parse({"--callback-ms", "0", "--elements", "1", "--batches", "2", "--batch-us", "10",
                          "--batch-elements", "1024"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.callback_ms, 0);
  EXPECT_EQ(p.options.elements, 1);
  EXPECT_EQ(p.options.batches, 2);
  const Parsed top = parse({"--callback-ms", "1000", "--elements", "16777216", "--batches", "1000", "--batch-us",
                            "100000", "--batch-elements", "16777216"});
  ASSERT_EQ(top.error, "");
  EXPECT_EQ(top.options.callback_ms, 1000);
}

TEST(CallbacksFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--callback-ms", "-1"}, "--callback-ms"},   {{"--callback-ms", "1001"}, "--callback-ms"},
      {{"--callback-ms", "50ms"}, "--callback-ms"}, {{"--callback-ms", "0.5"}, "--callback-ms"},
      {{"--elements", "0"}, "--elements"},          {{"--elements", "16777217"}, "--elements"},
      {{"--elements", "lots"}, "--elements"},       {{"--batches", "1"}, "--batches"},
      {{"--batches", "1001"}, "--batches"},         {{"--batches", "ten"}, "--batches"},
      {{"--batch-us", "9"}, "--batch-us"},          {{"--batch-us", "100001"}, "--batch-us"},
      {{"--batch-us", "-10"}, "--batch-us"},        {{"--batch-elements", "1023"}, "--batch-elements"},
      {{"--batch-elements", "1MiB"}, "--batch-elements"}, {{"--batch-elements", "99999999999"}, "--batch-elements"},
  };
  for (const auto& [args, flag] : cases) {
    const Parsed p = parse(args);
    EXPECT_NE(p.error.find(flag), std::string::npos) << args[0] << " " << args[1] << " -> " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
  EXPECT_NE(parse({"--callback-ms", "-1"}).error.find("0 to 1000"), std::string::npos);
}

TEST(CallbacksModel, CalibrationUsesTheTightestRoundTrip) {
  // GPU clock = host clock + 1'000'000'000'000 ns (an epoch-sized offset must not lose precision).
  const std::int64_t offset = 1'700'000'000'000'000'000;
  const std::vector<ClockProbe> probes = {
      {1000, 5000, 3000 + offset},  // 4 us round trip
      {9000, 10000, 9500 + offset},  // 1 us round trip: the one to use
      {20000, 23000, 21000 + offset},
  };
  const ClockCalibration c = calibrate(probes);
  EXPECT_EQ(c.offset_ns, offset);
  EXPECT_EQ(c.uncertainty_ns, 500);
  EXPECT_THROW(calibrate({}), std::invalid_argument);
}

TEST(CallbacksModel, LatencyIsCallbackStartMinusGpuEndOnTheHostClock) {
  const ClockCalibration c{1'700'000'000'000'000'000, 500};
  // GPU work ended at host time 1'000'000; the callback started at 1'012'500: 12.5 us.
  EXPECT_DOUBLE_EQ(callback_latency_us(1'012'500, 1'000'000 + c.offset_ns, c), 12.5);
  EXPECT_DOUBLE_EQ(callback_latency_us(1'000'000, 1'000'000 + c.offset_ns, c), 0.0);
}

TEST(CallbacksModel, Overlap) {
  EXPECT_EQ(overlap_ns(0, 10, 5, 20), 5);
  EXPECT_EQ(overlap_ns(5, 20, 0, 10), 5);
  EXPECT_EQ(overlap_ns(0, 10, 10, 20), 0);
  EXPECT_EQ(overlap_ns(0, 10, 20, 30), 0);
  EXPECT_EQ(overlap_ns(0, 100, 10, 20), 10);
}

TEST(CallbacksModel, BlockedGapAndPipelineSpeedup) {
  EXPECT_DOUBLE_EQ(predict_blocked_gap_ms(20, 15), 20.015);
  EXPECT_DOUBLE_EQ(predict_blocked_gap_ms(0, 15), 0.015);
  EXPECT_DOUBLE_EQ(predict_pipeline_speedup(1.0, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(predict_pipeline_speedup(3.0, 1.0), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(predict_pipeline_speedup(0.5, 2.0), 1.25);
  EXPECT_DOUBLE_EQ(predict_pipeline_speedup(0.0, 0.0), 1.0);
}

TEST(CallbacksModel, AHostFunctionOnAnIdleStreamWaitsForTheSleepingOne) {
  // 18 ms of sleep left at its enqueue, 0.05 ms alone, 0.02 ms to dispatch.
  EXPECT_DOUBLE_EQ(predict_shared_thread_wait_ms(18.0, 0.05, 0.02), 18.02);
  // Nothing asleep any more: its own wait.
  EXPECT_DOUBLE_EQ(predict_shared_thread_wait_ms(-1.0, 0.05, 0.02), 0.05);
}

namespace {

// A made-up run: 20 ms callbacks, 15 us dispatch, host functions sharing one thread.
Measurements made_up_run() {
  Measurements m;
  for (int i = 0; i < 5; ++i) {
    m.latency.push_back({15.0 + i, 0.5});
    m.blocking.push_back({20.02, 19.9});
    m.cross_alone.push_back({-0.01, 0.04, 6.0, 25.0});
    m.cross.push_back({19.9, 19.93, 6.5, 26.0});
    m.pipeline.push_back({40.0, 22.0, 0.5, 0.5});
  }
  m.legacy = {16.0, 0.5};
  m.ordering.add(600, 600);
  m.cross_results.add(100, 100);
  m.batches.add(1000, 1000);
  return m;
}


bool passes(const Params& p, const Measurements& m, const std::string& key) {
  return check_of(build_report(p, m, predict(p, m)), key).passed;
}

}  // namespace

TEST(CallbacksReport, AGoodRunPassesEveryCheck) {
  const Params p;
  const Measurements m = made_up_run();
  const auto r = build_report(p, m, predict(p, m));
  for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << c.key;
  EXPECT_TRUE(r.verify_passed());
  EXPECT_NEAR(*r.find_metric("cross.host_fn_wait")->predicted, 19.917, 1e-9);
  EXPECT_DOUBLE_EQ(*r.find_metric("cross.kernel")->predicted, 6.0);
  EXPECT_NEAR(*r.find_metric("blocking.gap")->predicted, 20.017, 1e-9);
  EXPECT_DOUBLE_EQ(*r.find_metric("pipeline.speedup")->predicted, 2.0);
  EXPECT_EQ(r.headline.en(), "callback latency 17.0 us median, p99 19.0 us; pipeline 1.82x");
}

TEST(CallbacksReport, VerifyFailsOnAnyWrongElement) {
  const Params p;
  Measurements m = made_up_run();
  m.ordering.add(9, 10);
  EXPECT_FALSE(passes(p, m, "callback_sees_kernel_results"));
  m = made_up_run();
  m.cross_results.add(9, 10);
  EXPECT_FALSE(passes(p, m, "cross_stream_results"));
  m = made_up_run();
  m.batches.add(9, 10);
  EXPECT_FALSE(passes(p, m, "pipeline_results"));
  m = made_up_run();
  m.batches = {};
  EXPECT_FALSE(passes(p, m, "pipeline_results"));
}

TEST(CallbacksReport, LatencyAndBlockingThresholds) {
  const Params p;
  Measurements m = made_up_run();
  for (auto& s : m.latency) s.latency_us = 199.9;
  EXPECT_TRUE(passes(p, m, "latency_under_200us"));
  for (auto& s : m.latency) s.latency_us = 200.0;
  EXPECT_FALSE(passes(p, m, "latency_under_200us"));

  m = made_up_run();
  m.blocking[2].gap_ms = 19.99;  // one sample shorter than the callback: stream order broken
  EXPECT_FALSE(passes(p, m, "callback_blocks_its_stream"));
  m = made_up_run();
  for (auto& s : m.blocking) s.other_busy_ms = 10.0;
  EXPECT_TRUE(passes(p, m, "other_stream_runs_on"));
  for (auto& s : m.blocking) s.other_busy_ms = 9.9;
  EXPECT_FALSE(passes(p, m, "other_stream_runs_on"));
}

TEST(CallbacksReport, HostFunctionsOfOtherStreamsWaitGpuWorkDoesNot) {
  const Params p;
  Measurements m = made_up_run();
  // A host function with a thread of its own would have started at once.
  for (auto& s : m.cross) s.host_fn_wait_ms = 0.05;
  EXPECT_FALSE(passes(p, m, "host_functions_share_a_thread"));
  for (auto& s : m.cross) s.host_fn_wait_ms = 0.9 * 19.9;
  EXPECT_TRUE(passes(p, m, "host_functions_share_a_thread"));
  for (auto& s : m.cross) s.host_fn_wait_ms = 0.89 * 19.9;
  EXPECT_FALSE(passes(p, m, "host_functions_share_a_thread"));

  m = made_up_run();
  // GPU work held back behind the sleeping host function would take the whole sleep.
  for (auto& s : m.cross) s.kernel_copy_us = 19'950.0;
  EXPECT_FALSE(passes(p, m, "gpu_work_of_other_streams_runs_on"));
  for (auto& s : m.cross) s.kernel_copy_us = 0.25 * 19'900.0;
  EXPECT_TRUE(passes(p, m, "gpu_work_of_other_streams_runs_on"));
  for (auto& s : m.cross) s.kernel_copy_us = 0.26 * 19'900.0;
  EXPECT_FALSE(passes(p, m, "gpu_work_of_other_streams_runs_on"));
}

TEST(CallbacksReport, CrossStreamChecksNeedASleep) {
  Params p;
  p.callback_ms = 0;
  const Measurements m = made_up_run();
  const auto r = build_report(p, m, predict(p, m));
  EXPECT_THROW(check_of(r, "host_functions_share_a_thread"), std::out_of_range);
  EXPECT_THROW(check_of(r, "gpu_work_of_other_streams_runs_on"), std::out_of_range);
}

TEST(CallbacksReport, WorkerPipelineMustBeatTheSyncLoop) {
  const Params p;
  Measurements m = made_up_run();
  for (auto& s : m.pipeline) s.worker_ms = 40.0;
  EXPECT_FALSE(passes(p, m, "worker_pipeline_faster"));
  for (auto& s : m.pipeline) s.worker_ms = 39.9;
  EXPECT_TRUE(passes(p, m, "worker_pipeline_faster"));
}

TEST(CallbacksReport, TheLectureSectionCarriesTheMeasuredSide) {
  const Params p;
  const Measurements m = made_up_run();
  const auto r = build_report(p, m, predict(p, m));
  bool found = false;
  for (const auto& s : r.sections) {
    if (s.key != "lecture") continue;
    found = true;
    EXPECT_EQ(s.notes_key, "lecture");
    ASSERT_EQ(s.tables.size(), 1u);
    EXPECT_EQ(s.tables[0].rows.size(), 3u);
    EXPECT_EQ(s.tables[0].rows[2][2].metric, "cross.host_fn_wait");
  }
  EXPECT_TRUE(found);
}
