// Lesson 07 without a GPU: its report's checks and the payback model from made-up runs.
#include <gtest/gtest.h>

#include <algorithm>

#include "model.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab;
using namespace cudalab::graph_forkjoin;
using graphs::StepMethod;

using cudalab::testing_support::check_of;

namespace {

// The fill case at the default shape: 6 us kernels that run one at a time, and the three methods'
// step times as given.
graphs::StepCase made_up_fill(double multi_us, double serial_us, double forkjoin_us) {
  graphs::StepCase c;
  c.params = graphs::fill_case(Params{});
  c.elements = 100;
  c.inputs.primitives = {3, 6, 2, 3.7, 1.0, 3, 1};
  c.inputs.chain20 = {{3.7}, {1.0}, {300}};
  c.inputs.footprint = {2112, 256, 1056};
  c.runs[StepMethod::multi_stream] = {{multi_us}, 100};
  c.runs[StepMethod::graph_serial] = {{serial_us}, 100};
  c.runs[StepMethod::graph_fork_join] = {{forkjoin_us}, 100};
  return c;
}

Measurements made_up(double forkjoin_us, double graph_per_kernel_us) {
  const Params p;
  Measurements m;
  m.elements = 100;
  m.inputs.primitives = {10, 15, 10, 3.7, 1.0};
  m.inputs.chain20 = {{4.0}, {1.0}, {300}};
  for (StepMethod s : {StepMethod::synchronous, StepMethod::multi_stream, StepMethod::graph_serial, StepMethod::graph_fork_join}) {
    m.runs[s] = {{1000}, 100};
  }
  m.runs[StepMethod::graph_fork_join] = {{forkjoin_us}, 100};
  m.runs[StepMethod::graph_serial] = {{3700}, 100};
  m.captured = m.built = graphs::expected_fork_join_shape(p.shape());
  m.explicit_correct = 100;
  for (int k : kSweepKernels) m.sweep.push_back({k, {{4.0}, {graph_per_kernel_us}, {300}}});
  m.update = {{60}, {140}, {160}, 100, 100, 100};
  m.memcpy_async_call_us = {2.0};
  m.inputs.footprint = {16, 128, 2112};
  m.fill = made_up_fill(520, 530, 490);
  return m;
}


}  // namespace

TEST(GraphForkJoinReport, EveryCheckOnTheDefaults) {
  const Params p;
  const Measurements m = made_up(970, 1.0);
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(r.verify_passed());
  EXPECT_TRUE(r.expect_passed());
  EXPECT_EQ(r.headline.en(), "forkjoin 0.97x, serial 3.70x the multi-stream time");
  EXPECT_DOUBLE_EQ(r.find_metric("lecture.launch_ratio")->summary().median, 4.0);
  ASSERT_EQ(r.sections.size(), 8u);
}

TEST(GraphForkJoinReport, ASlowForkJoinOrACostlyGraphNodeFailsItsExpect) {
  const Params p;
  Measurements m = made_up(1001, 1.5);
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_FALSE(check_of(r, "forkjoin_not_slower").passed);
  EXPECT_FALSE(check_of(r, "launch.graph_per_kernel_cheaper").passed) << "4.0 / 1.5 < 3";
}

TEST(GraphForkJoinReport, AShapeMismatchFailsVerify) {
  const Params p;
  Measurements m = made_up(970, 1.0);
  m.built.edges += 1;
  EXPECT_FALSE(check_of(build_report(p, m, predict(p, m)), "dag.same_shape").passed);
}

TEST(GraphForkJoinReport, TheLaunchSweepIsAPlot) {
  const Params p;
  const Measurements m = made_up(970, 1.0);
  const Report r = build_report(p, m, predict(p, m));
  bool found = false;
  for (const auto& s : r.sections) found = found || (!s.plots.empty() && s.plots[0].series[0].points.size() == kSweepKernels.size());
  EXPECT_TRUE(found);
}

TEST(GraphForkJoinReport, WithoutFullTheLaunchSectionIsTheModelsChainAndTheFillCaseIsLeftOut) {
  const Params p;  // no --full
  Measurements m = made_up(970, 1.0);
  m.fill.reset();
  m.sweep.clear();
  for (int k : sweep_kernels(p)) m.sweep.push_back({k, m.inputs.chain20});
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(r.verify_passed());
  EXPECT_TRUE(r.expect_passed());
  EXPECT_EQ(r.headline_metric_keys(), (std::vector<std::string>{"forkjoin_over_multi", "serial_over_multi"}));
  EXPECT_TRUE(check_of(r, "forkjoin_not_slower").passed);
  EXPECT_TRUE(check_of(r, "launch.graph_per_kernel_cheaper").passed) << "the K = 20 check stays in the default run";
  EXPECT_NE(r.find_metric("k20.ratio"), nullptr);
  EXPECT_EQ(r.find_metric("k100.ratio"), nullptr);
  for (const auto& c : r.checks) EXPECT_NE(c.key.rfind("fill.", 0), 0u) << c.key;
  for (const auto& s : r.sections) {
    EXPECT_NE(s.key, "fill");
    EXPECT_TRUE(s.plots.empty()) << s.key << ": one chain length draws no line";
  }
  ASSERT_EQ(r.sections.size(), 7u);
  bool suggests_full = false;
  for (const auto& t : r.try_next) suggests_full = suggests_full || t.command == "cudalab graph-forkjoin --full";
  EXPECT_TRUE(suggests_full);
}

TEST(GraphForkJoinFlags, FullAddsEveryChainLength) {
  Params p;
  EXPECT_FALSE(p.full);
  EXPECT_EQ(sweep_kernels(p), std::vector<int>{graphs::kChainKernels});
  const auto parsed = testing_support::parse_params(flags(), {"--full"});
  ASSERT_EQ(parsed.error, "");
  EXPECT_EQ(sweep_kernels(parsed.options), kSweepKernels);
  EXPECT_NE(std::find(kSweepKernels.begin(), kSweepKernels.end(), graphs::kChainKernels), kSweepKernels.end())
      << "the full sweep keeps the model's chain, where the check is";
}

TEST(GraphForkJoinModel, PaybackIsCeilOfBuildOverSaving) {
  EXPECT_EQ(*payback_replays(4.0, 1.0, 20, 300), 5.0);
  EXPECT_FALSE(payback_replays(1.0, 1.0, 20, 300).has_value());
}

TEST(GraphForkJoinReport, FillCaseStreamsBuyOnlyCopyOverlapAndTheGraphOnlyLaunchTime) {
  const Params p;
  const Measurements m = made_up(970, 1.0);
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_TRUE(check_of(r, "fill.fills_gpu").passed);
  // Small kernels: 4 streams buy +270% (3700 vs 1000 us); filling ones +2% (530 vs 520 us).
  EXPECT_TRUE(check_of(r, "fill.streams_buy_less").passed);
  EXPECT_TRUE(check_of(r, "fill.model_agrees").passed);
  // 30 us saved against 8 x 12 launches x 3.7 us = 355 us of launching.
  EXPECT_TRUE(check_of(r, "fill.graph_saves_only_launching").passed);
  EXPECT_DOUBLE_EQ(r.find_metric("fill.graph_saving")->summary().median, 30.0);
  EXPECT_NEAR(r.find_metric("fill.launching")->summary().median, 96 * 3.7, 1e-9);
  EXPECT_NEAR(r.find_metric("fill.serial_over_multi")->summary().median, 530.0 / 520, 1e-12);
  EXPECT_TRUE(check_of(r, "fill.results.graph-forkjoin").passed);
}

TEST(GraphForkJoinReport, FillChecksFailWhenTheirClaimDoesNot) {
  const Params p;
  Measurements m = made_up(970, 1.0);
  m.fill = made_up_fill(520, 1500, 100);  // streams bought +188%; the graph saved 420 us > 355
  m.fill->inputs.footprint = {16, 256, 1056};
  m.fill->runs[StepMethod::graph_serial].correct = 99;
  const Report r = build_report(p, m, predict(p, m));
  EXPECT_FALSE(check_of(r, "fill.fills_gpu").passed);
  EXPECT_FALSE(check_of(r, "fill.streams_buy_less").passed);
  EXPECT_FALSE(check_of(r, "fill.graph_saves_only_launching").passed);
  EXPECT_FALSE(check_of(r, "fill.results.graph-serial").passed);
  EXPECT_FALSE(r.verify_passed());
}

TEST(GraphForkJoinReport, WithFillKernelsThroughoutTheCasesAreNotComparedWithThemselves) {
  Params p;
  p.kernel = "fill";
  Measurements m = made_up(970, 1.0);
  const Report r = build_report(p, m, predict(p, m));
  for (const auto& c : r.checks) EXPECT_NE(c.key, "fill.streams_buy_less");
  EXPECT_TRUE(check_of(r, "fill.fills_gpu").passed);
}
