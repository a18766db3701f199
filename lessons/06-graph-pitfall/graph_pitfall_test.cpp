// Lesson 06 without a GPU: every check of its report from made-up runs of both cases.
#include <gtest/gtest.h>

#include "model.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab;
using namespace cudalab::graph_pitfall;
using graphs::StepMethod;

using cudalab::testing_support::check_of;

namespace {

StepCase made_up_case(const graphs::StepParams& p, double multi_us, double serial_us, double forkjoin_us,
                      double launch_us) {
  StepCase c;
  c.params = p;
  c.elements = 100;
  c.inputs.primitives.h2d_us = 10;
  c.inputs.primitives.kernel_us = 15;
  c.inputs.primitives.d2h_us = 10;
  c.inputs.primitives.stream_launch_us = launch_us;
  c.inputs.primitives.graph_node_us = 1;
  c.inputs.chain20.stream_per_kernel_us = {launch_us};
  c.inputs.chain20.graph_per_kernel_us = {1};
  c.runs[StepMethod::synchronous] = {{4000}, 100};
  c.runs[StepMethod::multi_stream] = {{multi_us}, 100};
  c.runs[StepMethod::graph_serial] = {{serial_us}, 100};
  if (forkjoin_us > 0) c.runs[StepMethod::graph_fork_join] = {{forkjoin_us}, 100};
  return c;
}

Measurements made_up(double lb_multi, double lb_serial, double lb_forkjoin) {
  const Params p;
  Measurements m;
  m.main = made_up_case(p, 1480, 5500, 0, 3.7);
  m.main.runs.erase(StepMethod::graph_fork_join);
  m.launch_bound = made_up_case(launch_bound_case(p), lb_multi, lb_serial, lb_forkjoin, 3.7);
  m.launch_bound.runs.erase(StepMethod::synchronous);
  m.main.inputs.footprint = {16, 128, 2112};
  // Filling kernels: 6 us each, one at a time; 4 streams buy +2% (530 vs 520 us).
  m.fill = made_up_case(graphs::fill_case(p), 520, 530, 490, 3.7);
  m.fill->runs.erase(StepMethod::synchronous);
  m.fill->inputs.primitives.h2d_us = 3;
  m.fill->inputs.primitives.kernel_us = 6;
  m.fill->inputs.primitives.d2h_us = 2;
  m.fill->inputs.primitives.max_concurrent_kernels = 1;
  m.fill->inputs.footprint = {2112, 256, 1056};
  m.one_batch.nodes = 12;
  return m;
}


}  // namespace

TEST(GraphPitfallReport, DefaultStepIsGpuBoundAndTheSerialGraphLoses) {
  const Params p;
  const Measurements m = made_up(90, 60, 30);
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(check_of(r, "graph_serial_slower").passed);
  // 8 batches x 12 ops x 3.7 us = 355 us of launching against a 1480 us step.
  EXPECT_TRUE(check_of(r, "default_is_gpu_bound").passed);
  EXPECT_TRUE(check_of(r, "launch_bound_graph_wins").passed);
  EXPECT_TRUE(r.verify_passed());
  EXPECT_NEAR(r.find_metric("case.default.launch_share")->summary().median, 100.0 * 8 * 12 * 3.7 / 1480, 1e-9);
}

TEST(GraphPitfallReport, LaunchBoundCaseFailsWhenNoGraphBeatsMultiStream) {
  const Params p;
  const Measurements m = made_up(50, 60, 55);
  EXPECT_FALSE(check_of(build_report(p, m, predict(p, m)), "launch_bound_graph_wins").passed);
}

TEST(GraphPitfallReport, ALaunchHeavyDefaultIsNotCalledGpuBound) {
  const Params p;
  Measurements m = made_up(90, 60, 30);
  m.main.inputs.primitives.stream_launch_us = 10;  // 960 us of launching in a 1480 us step
  EXPECT_FALSE(check_of(build_report(p, m, predict(p, m)), "default_is_gpu_bound").passed);
}

TEST(GraphPitfallReport, AWrongElementInEitherCaseFailsVerify) {
  const Params p;
  Measurements m = made_up(90, 60, 30);
  m.launch_bound.runs[StepMethod::graph_serial].correct = 99;
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_FALSE(check_of(r, "launch_bound.results.graph-serial").passed);
  EXPECT_TRUE(check_of(r, "results.graph-serial").passed);
  EXPECT_FALSE(r.verify_passed());
}

TEST(GraphPitfallReport, FillCaseIsTheThirdRowOfTheBoundTableAndItsChecksPass) {
  const Params p;
  const Measurements m = made_up(90, 60, 30);
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_NEAR(r.find_metric("case.fill.serial_over_multi")->summary().median, 530.0 / 520, 1e-12);
  ASSERT_NE(r.find_metric("case.fill.serial_over_multi")->predicted, std::nullopt);
  EXPECT_NEAR(r.find_metric("case.fill.forkjoin_over_multi")->summary().median, 490.0 / 520, 1e-12);
  EXPECT_NE(r.find_metric("fill.step.graph-serial"), nullptr);
  for (const char* key : {"fill.fills_gpu", "fill.streams_buy_less", "fill.model_agrees",
                          "fill.graph_saves_only_launching", "fill.results.multi-stream"}) {
    EXPECT_TRUE(check_of(r, key).passed) << key;
  }
  bool third_row = false;
  for (const auto& s : r.sections) {
    for (const auto& t : s.tables) third_row = third_row || (t.key == "bound" && t.rows.size() == 3);
  }
  EXPECT_TRUE(third_row);
}

TEST(GraphPitfallReport, FillCaseWhereStreamsStillBuyMuchFailsItsCheck) {
  const Params p;
  Measurements m = made_up(90, 60, 30);
  m.fill->runs[StepMethod::graph_serial] = {{1500}, 100};  // +188% against the default's +272%
  EXPECT_FALSE(check_of(build_report(p, m, predict(p, m)), "fill.streams_buy_less").passed);
}

TEST(GraphPitfallReport, WithoutTheFillCaseTheDefaultKeepsItsHeadlineChecksAndVerifies) {
  const Params p;  // no --full: measure() leaves the fill case out
  Measurements m = made_up(90, 60, 30);
  m.fill.reset();
  const Prediction pred = predict(p, m);
  EXPECT_FALSE(pred.fill.has_value());
  const Report r = build_report(p, m, pred);
  EXPECT_EQ(r.headline_metric_keys(), std::vector<std::string>{"serial_over_multi"});
  for (const char* key : {"graph_serial_slower", "model_agrees", "launch_bound_graph_wins", "default_is_gpu_bound"}) {
    EXPECT_TRUE(check_of(r, key).passed) << key;
  }
  EXPECT_TRUE(check_of(r, "results.graph-serial").passed);
  EXPECT_TRUE(check_of(r, "launch_bound.results.graph-forkjoin").passed);
  for (const auto& c : r.checks) EXPECT_NE(c.key.rfind("fill.", 0), 0u) << c.key;
  EXPECT_EQ(r.find_metric("case.fill.serial_over_multi"), nullptr);
  EXPECT_NE(r.find_metric("case.launch_bound.forkjoin_over_multi"), nullptr);
  for (const auto& s : r.sections) {
    EXPECT_NE(s.key, "fill");
    for (const auto& t : s.tables) {
      if (t.key == "bound") {
        EXPECT_EQ(t.rows.size(), 2u);
      }
    }
  }
  bool suggests_full = false;
  for (const auto& t : r.try_next) suggests_full = suggests_full || t.command == "cudalab graph-pitfall --full";
  EXPECT_TRUE(suggests_full);
}

TEST(GraphPitfallFlags, FullIsOffByDefaultAndTheLaunchBoundCaseKeepsTwentySteps) {
  EXPECT_FALSE(Params{}.full);
  EXPECT_EQ(Params{}.steps, 2);
  const auto parsed = testing_support::parse_params(flags(), {"--full"});
  ASSERT_EQ(parsed.error, "");
  EXPECT_TRUE(parsed.options.full);
  bool listed = false;
  for (const auto& param : flags().params(Params{})) listed = listed || (param.name == "full" && param.value == "off");
  EXPECT_TRUE(listed) << "the report's params say whether --full ran";
  EXPECT_EQ(launch_bound_case(Params{}).steps, kLaunchBoundSteps);
  Params many;
  many.steps = 50;
  EXPECT_EQ(launch_bound_case(many).steps, 50);
}

TEST(GraphPitfallModel, ToTheModelAFillingKernelLeavesStreamsOnlyTheCopiesToOverlap) {
  const Params p;
  const Measurements m = made_up(90, 60, 30);
  const Prediction pred = predict(p, m);
  // One kernel at a time: multi-stream runs the 80 kernels back to back once the host has issued
  // the first upload and kernel (2 x 3.7 us), and only the last download follows them; the serial
  // graph pays one node's cost up front and then every batch's copies in line.
  ASSERT_TRUE(pred.fill.has_value());
  EXPECT_NEAR(pred.fill->step_us.at(StepMethod::multi_stream), 2 * 3.7 + 80 * 6 + 2, 1e-9);
  EXPECT_NEAR(pred.fill->step_us.at(StepMethod::graph_serial), 1 + 8 * (3 + 10 * 6 + 2), 1e-9);
  EXPECT_GT(pred.main.serial_over_multi, 2.0);
}

TEST(GraphPitfallFlags, StepFlagsAndShowErrors) {
  const auto parsed = testing_support::parse_params(flags(), {"--layers", "1", "--features", "64", "--show-errors"});
  ASSERT_EQ(parsed.error, "");
  EXPECT_EQ(parsed.options.layers, 1);
  EXPECT_EQ(parsed.options.features, 64);
  EXPECT_TRUE(parsed.options.show_errors);
  EXPECT_NE(testing_support::parse_params(flags(), {"--layers", "0"}).error.find("--layers"), std::string::npos);
  EXPECT_EQ(parsed.options.kernel, "small");
  const auto fill = testing_support::parse_params(flags(), {"--kernel", "fill"});
  ASSERT_EQ(fill.error, "");
  EXPECT_EQ(fill.options.layer_kernel(), graphs::LayerKernel::fill);
  EXPECT_NE(testing_support::parse_params(flags(), {"--kernel", "huge"}).error.find("--kernel"), std::string::npos);
}
