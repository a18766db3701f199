// Lessons 06 and 07 without a GPU: the DAG-shape analysis on synthetic graphs, the engine
// model's predictions for the four methods, and every flag's validation through the real CLI.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "cli/app.hpp"
#include "common/core/errors.hpp"
#include "common/model/graph_shape.hpp"
#include "lessons/shared/training-step/step_model.hpp"
#include "lessons/shared/training-step/step_reference.hpp"
#include "test_support.hpp"

using namespace cudalab;
using namespace cudalab::graphs;

namespace {

using testing_support::slug_of;
using Edges = std::vector<std::pair<std::size_t, std::size_t>>;

int run_quietly(std::vector<std::string> args, std::string* err = nullptr) {
  const auto outcome = testing_support::run_cudalab(std::move(args));
  if (err != nullptr) *err = outcome.err;
  return outcome.code;
}

Edges chain_edges(std::size_t first, std::size_t count) {
  Edges e;
  for (std::size_t i = first; i + 1 < first + count; ++i) e.emplace_back(i, i + 1);
  return e;
}

}  // namespace

TEST(GraphShape, ChainAntichainAndEmpty) {
  const DagShape chain = analyze_dag(5, chain_edges(0, 5));
  EXPECT_EQ(chain.nodes, 5u);
  EXPECT_EQ(chain.edges, 4u);
  EXPECT_EQ(chain.width, 1u);
  EXPECT_EQ(chain.critical_path, 5u);
  EXPECT_EQ(chain.roots, 1u);
  EXPECT_EQ(chain.leaves, 1u);

  const DagShape loose = analyze_dag(4, {});
  EXPECT_EQ(loose.width, 4u);
  EXPECT_EQ(loose.critical_path, 1u);

  const DagShape none = analyze_dag(0, {});
  EXPECT_EQ(none.width, 0u);
  EXPECT_EQ(none.critical_path, 0u);
}

TEST(GraphShape, DiamondAndDuplicateEdges) {
  // 0 -> {1, 2} -> 3, with 0->1 listed twice.
  const DagShape d = analyze_dag(4, {{0, 1}, {0, 1}, {0, 2}, {1, 3}, {2, 3}});
  EXPECT_EQ(d.edges, 4u);
  EXPECT_EQ(d.width, 2u);
  EXPECT_EQ(d.critical_path, 3u);
}

TEST(GraphShape, WidthIsTheLargestAntichainNotTheWidestLevel) {
  // s -> a1 -> a2 -> a3, s -> x, a1 -> y: {x, y, a3} can all run at once, yet no depth holds
  // more than two nodes. Counting nodes per level would under-report the width.
  enum { s, a1, a2, a3, x, y, count };
  const DagShape d = analyze_dag(count, {{s, a1}, {a1, a2}, {a2, a3}, {s, x}, {a1, y}});
  EXPECT_EQ(d.widest_level, 2u);
  EXPECT_EQ(d.width, 3u);
  EXPECT_EQ(d.critical_path, 4u);
}

TEST(GraphShape, ForkJoinStepMatchesTheExpectedFormula) {
  // B batches of (L+2) nodes on S streams: batch b follows batch b-S.
  for (const StepShape shape : {StepShape{8, 10, 4}, StepShape{8, 10, 1}, StepShape{1, 1, 1},
                                StepShape{8, 10, 64}, StepShape{7, 3, 3}}) {
    const std::size_t per_batch = static_cast<std::size_t>(shape.layers) + 2;
    const std::size_t n = per_batch * static_cast<std::size_t>(shape.batches);
    Edges edges;
    for (int b = 0; b < shape.batches; ++b) {
      const std::size_t first = static_cast<std::size_t>(b) * per_batch;
      const Edges inside = chain_edges(first, per_batch);
      edges.insert(edges.end(), inside.begin(), inside.end());
      if (b >= shape.streams) edges.emplace_back(first - static_cast<std::size_t>(shape.streams) * per_batch + per_batch - 1, first);
    }
    const DagShape got = analyze_dag(n, edges);
    const DagShape want = expected_fork_join_shape(shape);
    EXPECT_EQ(got.nodes, want.nodes);
    EXPECT_EQ(got.edges, want.edges);
    EXPECT_EQ(got.width, want.width);
    EXPECT_EQ(got.critical_path, want.critical_path);
    EXPECT_EQ(got.roots, want.roots);
    EXPECT_EQ(got.leaves, want.leaves);
  }
}

TEST(GraphShape, RejectsCyclesAndBadIndices) {
  EXPECT_THROW(analyze_dag(3, {{0, 1}, {1, 2}, {2, 0}}), std::invalid_argument);
  EXPECT_THROW(analyze_dag(2, {{0, 2}}), std::invalid_argument);
}

TEST(GraphShape, LargestLessonGraphIsQuick) {
  // 64 batches x 34 nodes on 64 streams: the biggest DAG the flags allow.
  const StepShape shape{64, 32, 64};
  EXPECT_EQ(expected_fork_join_shape(shape).nodes, 64u * 34u);
  Edges edges;
  for (std::size_t b = 0; b < 64; ++b) {
    const Edges inside = chain_edges(b * 34, 34);
    edges.insert(edges.end(), inside.begin(), inside.end());
  }
  EXPECT_EQ(analyze_dag(64 * 34, edges).width, 64u);
}

namespace {
StepPrimitives h100_like() {
  StepPrimitives p;
  p.h2d_us = 3;
  p.kernel_us = 10;  // a 2048-feature layer: longer than one stream launch
  p.d2h_us = 3;
  p.stream_launch_us = 4;
  p.graph_node_us = 1;
  p.copy_engines = 3;
  p.max_concurrent_kernels = 128;
  return p;
}
}  // namespace

TEST(StepModel, SerialMethodsAddUpEveryOp) {
  const StepShape shape{2, 3, 4};
  StepPrimitives p = h100_like();
  p.stream_launch_us = 0;
  p.graph_node_us = 0;
  // Nothing overlaps on one stream: 2 batches x (3 + 3*10 + 3).
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::graph_serial, shape, p), 2 * 36.0);
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::synchronous, shape, p), 2 * 36.0);
}

TEST(StepModel, TheLessonsOrderingOnDefaults) {
  const StepShape shape{8, 10, 4};
  const StepPrimitives p = h100_like();
  const double sync = predict_step_us(StepMethod::synchronous, shape, p);
  const double multi = predict_step_us(StepMethod::multi_stream, shape, p);
  const double serial = predict_step_us(StepMethod::graph_serial, shape, p);
  const double forkjoin = predict_step_us(StepMethod::graph_fork_join, shape, p);
  EXPECT_GT(sync, serial);
  EXPECT_GT(serial, 1.2 * multi) << "lesson 06: the serial graph loses to multi-stream";
  EXPECT_LE(forkjoin, multi) << "lesson 07: fork/join keeps up with multi-stream";
  // Multi-stream is bound by the host: 8 x 12 launches at 4 us.
  EXPECT_GE(multi, 8 * 12 * 4.0);
}

TEST(StepModel, OneStreamLeavesNothingToOverlap) {
  const StepShape shape{8, 10, 1};
  const StepPrimitives p = h100_like();
  EXPECT_LT(predict_step_us(StepMethod::graph_serial, shape, p), predict_step_us(StepMethod::multi_stream, shape, p));
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::graph_fork_join, shape, p),
                   predict_step_us(StepMethod::graph_serial, shape, p));
}

TEST(StepModel, MoreStreamsThanBatchesChangeNothing) {
  const StepPrimitives p = h100_like();
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::graph_fork_join, StepShape{8, 10, 8}, p),
                   predict_step_us(StepMethod::graph_fork_join, StepShape{8, 10, 64}, p));
}

TEST(StepModel, FillingKernelsRunOneAtATimeSoStreamsOnlyOverlapCopies) {
  const StepShape shape{8, 10, 4};
  StepPrimitives p = h100_like();
  p.stream_launch_us = 0;
  p.graph_node_us = 0;
  p.max_concurrent_kernels = 1;  // each kernel holds every SM
  // The 80 kernels run back to back; only the first upload and the last download stick out.
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::multi_stream, shape, p), 3 + 80 * 10.0 + 3);
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::graph_fork_join, shape, p), 3 + 80 * 10.0 + 3);
  // One stream adds every batch's copies: streams buy 8 x 6 - 6 us, the copies' overlap.
  EXPECT_DOUBLE_EQ(predict_step_us(StepMethod::graph_serial, shape, p), 8 * 106.0);
  // With room for four kernels the same streams buy about four times.
  p.max_concurrent_kernels = 128;
  EXPECT_GT(predict_step_us(StepMethod::graph_serial, shape, p), 3.5 * predict_step_us(StepMethod::multi_stream, shape, p));
}

TEST(GraphLessonFlags, BadValuesAreUsageErrors) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  for (const std::string& lesson : {slug_of(6), slug_of(7)}) {
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"--batches", "0"}, {"--batches", "65"}, {"--batches", "-1"}, {"--batches", "x"},
          {"--layers", "0"}, {"--layers", "33"}, {"--layers", "1.5"}, {"--streams", "0"}, {"--streams", "65"},
          {"--streams", "99999999999"}, {"--features", "16"}, {"--features", "8192"}, {"--features", "1KiB"},
          {"--steps", "0"}, {"--steps", "1001"}, {"--kernel", "big"}}) {
      std::vector<std::string> args{lesson};
      args.insert(args.end(), bad.begin(), bad.end());
      std::string err;
      EXPECT_EQ(run_quietly(args, &err), to_int(ExitCode::usage)) << lesson << " " << bad[0] << " " << bad[1];
      EXPECT_NE(err.find(bad[0]), std::string::npos) << err;
      EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
    }
  }
}

TEST(GraphLessonFlags, GoodValuesReachTheDeviceCheck) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  // Valid flags get past parsing; with no GPU the lesson is then waived (77).
  for (const std::vector<std::string>& good :
       {std::vector<std::string>{slug_of(6), "--streams", "1", "--batches", "1", "--layers", "1"},
        {slug_of(6), "--streams", "64", "--show-errors"},
        {"06", "--features", "32", "--steps", "1000"},
        {"06", "--kernel", "fill"},
        {slug_of(7), "--kernel", "small"},
        {slug_of(7), "--streams", "64", "--batches", "64", "--layers", "32"},
        {"07", "--dot", "/tmp/cudalab-graph-test.dot"}}) {
    EXPECT_EQ(run_quietly(good), to_int(ExitCode::waived)) << good[0] << " " << good[1];
  }
}

TEST(GraphLessonFlags, UnwritableDotPathIsAUsageErrorBeforeRunning) {
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  std::string err;
  EXPECT_EQ(run_quietly({slug_of(7), "--dot", "/nonexistent-dir/step.dot"}, &err), to_int(ExitCode::usage));
  EXPECT_NE(err.find("--dot"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
}

// The CPU reference the step is verified against: its batches run on several host threads, and
// the result must be what one thread computes, batch after batch.
TEST(StepReference, ThreadedBatchesMatchOneLayerWrittenOut) {
  const int batches = 5, layers = 3, size = 40;
  const auto weights = make_weights(size);
  const auto inputs = make_inputs(batches, size, 7);
  const auto out = cpu_reference(weights, inputs, batches, layers, size);
  ASSERT_EQ(out.size(), static_cast<std::size_t>(batches * size));
  for (int b = 0; b < batches; ++b) {
    std::vector<std::uint32_t> x(inputs.begin() + b * size, inputs.begin() + (b + 1) * size);
    for (int l = 0; l < layers; ++l) {
      std::vector<std::uint32_t> y(static_cast<std::size_t>(size));
      for (int i = 0; i < size; ++i) {
        std::uint32_t acc = static_cast<std::uint32_t>(l) * kLayerSalt;
        for (int j = 0; j < size; ++j) acc += weights[static_cast<std::size_t>(j * size + i)] * x[static_cast<std::size_t>(j)];
        y[static_cast<std::size_t>(i)] = finish_layer(acc);
      }
      x = y;
    }
    for (int i = 0; i < size; ++i) ASSERT_EQ(out[static_cast<std::size_t>(b * size + i)], x[static_cast<std::size_t>(i)]) << b << "," << i;
  }
}

TEST(StepReference, IsComputedOncePerShapeAndSeed) {
  const auto first = step_reference(3, 2, 64, 1);
  EXPECT_EQ(step_reference(3, 2, 64, 1).get(), first.get()) << "the same shape and seed: the same result, not computed again";
  const auto other_seed = step_reference(3, 2, 64, 2);
  EXPECT_NE(other_seed.get(), first.get());
  EXPECT_NE(*other_seed, *first);
  EXPECT_EQ(*first, cpu_reference(make_weights(64), make_inputs(3, 64, 1), 3, 2, 64));
}
