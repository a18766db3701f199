#include <gtest/gtest.h>

#include <stdexcept>

#include "common/model/engine_model.hpp"

using namespace cudalab;

namespace {
constexpr double t = 1.0;
const PipelineStages kEqual{t, t, t};

double makespan(int chunks, int streams, int copy_engines, IssueOrder order, bool pageable = false,
                int hardware_queues = kDefaultHardwareQueues) {
  EngineConfig config;
  config.copy_engines = copy_engines;
  config.hardware_queues = hardware_queues;
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

TEST(EngineModel, OneSharedCopyEngineAndOneQueueMakeIssueOrderMatter) {
  // One hardware queue (a pre-Kepler GPU, or CUDA_DEVICE_MAX_CONNECTIONS=1): the copy engine
  // takes its work strictly in issue order.
  const double depth = makespan(4, 4, 1, IssueOrder::depth_first, false, 1);
  const double breadth = makespan(4, 4, 1, IssueOrder::breadth_first, false, 1);
  EXPECT_NE(depth, breadth);
  EXPECT_DOUBLE_EQ(breadth, 8 * t);  // 4 uploads, then 4 downloads on the one engine
  EXPECT_DOUBLE_EQ(depth, 12 * t);   // each download blocks the next upload in the queue
  // With two engines the order no longer matters.
  EXPECT_DOUBLE_EQ(makespan(4, 4, 2, IssueOrder::depth_first, false, 1),
                   makespan(4, 4, 2, IssueOrder::breadth_first, false, 1));
}

TEST(EngineModel, HardwareQueuesDecideWhatBreadthFirstCostsWithTwoChunksPerStream) {
  // 8 equal chunks on 4 streams, two copy engines. Depth-first: kernel c+4 follows D2H c in its
  // stream, and the pipeline still takes N+2 = 10 stages whatever the queues.
  for (int queues : {1, 4, 8}) {
    EXPECT_DOUBLE_EQ(makespan(8, 4, 2, IssueOrder::depth_first, false, queues), 10 * t) << queues;
  }
  // Breadth-first with one queue: kernel 0 waits (stream order) for upload 4, every kernel waits
  // for the one before it in the queue, and downloads 4..7 queue behind download 3: 18 stages.
  EXPECT_DOUBLE_EQ(makespan(8, 4, 2, IssueOrder::breadth_first, false, 1), 18 * t);
  // With a queue per stream, the upload engine serves stream 0's second upload right after its
  // first (the queue keeps the engine), so kernels start after 2 stages: 12 stages.
  EXPECT_DOUBLE_EQ(makespan(8, 4, 2, IssueOrder::breadth_first, false, 4), 12 * t);
  EXPECT_DOUBLE_EQ(makespan(8, 4, 2, IssueOrder::breadth_first, false, 8), 12 * t);
  // Two queues for four streams: streams 0 and 2 share one, so it lands in between.
  const double two = makespan(8, 4, 2, IssueOrder::breadth_first, false, 2);
  EXPECT_GT(two, 12 * t);
  EXPECT_LE(two, 18 * t);
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
  one_queue.hardware_queues = 1;
  EXPECT_DOUBLE_EQ(simulate(ops, one_queue).start[2], 10);
  EngineConfig two_queues = one_queue;
  two_queues.hardware_queues = 2;
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
