#include <gtest/gtest.h>

#include <stdexcept>

#include "common/model/engine_model.hpp"

using namespace cudalab;

namespace {
constexpr double t = 1.0;
const PipelineStages kEqual{t, t, t};

double makespan(int chunks, int streams, int copy_engines, IssueOrder order, bool pageable = false) {
  EngineConfig config;
  config.copy_engines = copy_engines;
  return simulate(pipeline_ops(chunks, streams, kEqual, order, pageable), config).makespan;
}
}  // namespace

TEST(EngineModel, OneStreamIsFullySerial) {
  for (int n : {1, 2, 4, 8}) EXPECT_DOUBLE_EQ(makespan(n, 1, 2, IssueOrder::depth_first), 3 * n * t);
}

TEST(EngineModel, PipelinedOnTwoCopyEnginesTakesNPlusTwoStages) {
  for (int n : {2, 4, 8, 16}) {
    EXPECT_DOUBLE_EQ(makespan(n, n, 2, IssueOrder::depth_first), (n + 2) * t);
    EXPECT_DOUBLE_EQ(makespan(n, n, 3, IssueOrder::breadth_first), (n + 2) * t);
    // The speed-up 3N/(N+2) that lesson 03 compares against.
    EXPECT_DOUBLE_EQ(makespan(n, 1, 2, IssueOrder::depth_first) / makespan(n, n, 2, IssueOrder::depth_first),
                     3.0 * n / (n + 2));
  }
}

TEST(EngineModel, OneSharedCopyEngineMakesIssueOrderMatter) {
  const double depth = makespan(4, 4, 1, IssueOrder::depth_first);
  const double breadth = makespan(4, 4, 1, IssueOrder::breadth_first);
  EXPECT_NE(depth, breadth);
  EXPECT_DOUBLE_EQ(breadth, 8 * t);  // 4 uploads, then 4 downloads on the one engine
  EXPECT_DOUBLE_EQ(depth, 12 * t);   // each download blocks the next upload in the queue
  // With two engines the order no longer matters.
  EXPECT_DOUBLE_EQ(makespan(4, 4, 2, IssueOrder::depth_first), makespan(4, 4, 2, IssueOrder::breadth_first));
}

TEST(EngineModel, PageableCopiesSerializeThePipeline) {
  for (int n : {2, 4, 8}) {
    EXPECT_DOUBLE_EQ(makespan(n, n, 2, IssueOrder::depth_first, /*pageable=*/true), 3 * n * t);
  }
}

TEST(EngineModel, EventDependenciesAndStartTimes) {
  // stream 0: H2D (2) ; stream 1: kernel (1) that waits on the copy.
  std::vector<Op> ops(2);
  ops[0] = Op{OpKind::h2d, 0, 2.0, {}, false, "copy"};
  ops[1] = Op{OpKind::kernel, 1, 1.0, {0}, false, "kernel"};
  const Schedule s = simulate(ops, EngineConfig{});
  EXPECT_DOUBLE_EQ(s.start[1], 2.0);
  EXPECT_DOUBLE_EQ(s.makespan, 3.0);
  std::vector<Op> bad(1);
  bad[0] = Op{OpKind::kernel, 0, 1.0, {0}, false, "self"};
  EXPECT_THROW(simulate(bad, EngineConfig{}), std::invalid_argument);
}

TEST(EngineModel, LaunchOverheadAndConcurrentKernels) {
  // Ten empty kernels in one stream cost ten launch overheads.
  std::vector<Op> chain(10, Op{OpKind::kernel, 0, 0.0, {}, false, "k"});
  EngineConfig config;
  config.launch_overhead = 4.0;
  EXPECT_DOUBLE_EQ(simulate(chain, config).makespan, 40.0);
  // Two independent kernels on two streams overlap only when the device runs them at once.
  std::vector<Op> pair{Op{OpKind::kernel, 0, 5.0, {}, false, "a"}, Op{OpKind::kernel, 1, 5.0, {}, false, "b"}};
  EXPECT_DOUBLE_EQ(simulate(pair, EngineConfig{2, 1, 0}).makespan, 10.0);
  EXPECT_DOUBLE_EQ(simulate(pair, EngineConfig{2, 2, 0}).makespan, 5.0);
}

TEST(EngineModel, TransferPlusComputeStreamDoubleBuffering) {
  // One transfer stream carries both directions, so each chunk costs two copy stages in steady
  // state (kernel c overlaps H2D c+1, then D2H c): equal stages take 2N, against 3N in one
  // stream and N+2 with a stream per chunk. One chunk cannot overlap anything: 3.
  for (int n : {1, 2, 4, 8}) {
    const auto ops = transfer_compute_ops(n, kEqual);
    EXPECT_EQ(ops.size(), static_cast<std::size_t>(3 * n));
    EXPECT_DOUBLE_EQ(simulate(ops, EngineConfig{}).makespan, n == 1 ? 3.0 : 2.0 * n) << n;
  }
  // When the kernel dominates, the copies hide behind it: N kernels plus one upload and one download.
  const auto kernel_bound = transfer_compute_ops(4, PipelineStages{1, 5, 1});
  EXPECT_DOUBLE_EQ(simulate(kernel_bound, EngineConfig{}).makespan, 1 + 4 * 5 + 1);
  EXPECT_THROW(transfer_compute_ops(0, kEqual), std::invalid_argument);
}

TEST(EngineModel, KernelQueuesLetStreamsDispatchIndependently) {
  // Stream 0: two long kernels; stream 1: one short kernel issued after them. With one queue
  // the short kernel waits until the second long one has started; with two it starts at once.
  std::vector<Op> ops(3);
  ops[0] = Op{OpKind::kernel, 0, 10, {}, false, "a0"};
  ops[1] = Op{OpKind::kernel, 0, 10, {}, false, "a1"};
  ops[2] = Op{OpKind::kernel, 1, 1, {}, false, "b0"};
  EngineConfig one_queue;
  one_queue.concurrent_kernels = 4;
  EXPECT_DOUBLE_EQ(simulate(ops, one_queue).start[2], 10);
  EngineConfig two_queues = one_queue;
  two_queues.kernel_queues = 2;
  EXPECT_DOUBLE_EQ(simulate(ops, two_queues).start[2], 0);
}

TEST(EngineModel, BatchChainOpsPutsBatchesOnStreamsInOrder) {
  const auto ops = batch_chain_ops(3, 2, {{OpKind::h2d, 1}, {OpKind::kernel, 2}}, true);
  ASSERT_EQ(ops.size(), 6u);
  EXPECT_EQ(ops[0].stream, 0);
  EXPECT_EQ(ops[2].stream, 1);
  EXPECT_EQ(ops[4].stream, 0);
  EXPECT_EQ(ops[3].kind, OpKind::kernel);
  EXPECT_TRUE(ops[5].host_synchronous);
  EXPECT_THROW(batch_chain_ops(0, 1, {}, false), std::invalid_argument);
}
