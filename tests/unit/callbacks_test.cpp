// Lesson 05 without a GPU: its flags, the clock calibration and the predictions.
#include <gtest/gtest.h>

#include <stdexcept>

#include "lessons/05-callbacks/callbacks_model.hpp"
#include "lessons/05-callbacks/callbacks_options.hpp"
#include "test_support.hpp"

using namespace cudalab::callbacks;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<CallbacksOptions>;
Parsed parse(std::vector<std::string> args) {
  return cudalab::testing_support::parse_options<CallbacksOptions>(std::move(args), add_callbacks_options);
}
}  // namespace

TEST(CallbacksFlags, DefaultsAndGoodValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.callback_ms, 20);
  EXPECT_EQ(d.options.elements, 65536);
  EXPECT_EQ(d.options.batches, 40);
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
