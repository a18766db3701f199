// A small discrete-event model of a GPU's engines, used to predict what a lesson should
// measure. Pure C++: no CUDA, unit-tested on any machine.
//
// The model: the host issues operations in a given order, paying `launch_overhead_us` per
// operation. Each operation runs on one engine (H2D copy, D2H copy, or compute). An operation
// starts when
//   * the host has issued it,
//   * the previous operation of its stream has ended (stream order),
//   * every operation it waits on has ended (cudaStreamWaitEvent on an event recorded after it),
//   * a slot of its engine is free, and
//   * every earlier operation of its hardware queue has started. The device has several
//     hardware work queues (Hyper-Q "connections", CUDA_DEVICE_MAX_CONNECTIONS, 8 by default);
//     stream s feeds queue s % queues. A queue dispatches in issue order, to every engine (copy
//     and compute alike); different queues do not wait for each other. With one queue every
//     engine takes work in issue order, which is why on old GPUs (or with
//     CUDA_DEVICE_MAX_CONNECTIONS=1) the issue order (depth- vs breadth-first) matters.
// When an engine frees up and several queues have work for it that could start at once, the
// queue it just served keeps it (the front end drains a queue until it must wait), then the
// earliest issued wins.
// A host-synchronous operation (a copy from pageable memory) blocks the host until it ends,
// so nothing issued after it can start earlier: that is how pageable memory kills overlap.
// With one copy engine, H2D and D2H share it; with two or more they have one each.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

enum class OpKind { h2d, d2h, kernel };

struct Op {
  OpKind kind = OpKind::kernel;
  int stream = 0;
  double duration = 0;                // any time unit, the same for every op
  std::vector<std::size_t> waits_on;  // indices of earlier ops (event dependencies)
  bool host_synchronous = false;      // the host waits for it to end (pageable copy)
  std::string label;
};

// CUDA's default number of hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS unset).
inline constexpr int kDefaultHardwareQueues = 8;

struct EngineConfig {
  int copy_engines = 2;         // cudaDeviceProp::asyncEngineCount (0 or 1: one shared engine)
  int concurrent_kernels = 1;   // kernels that may run at once (1 when each fills the GPU)
  double launch_overhead = 0;   // host time to issue one op, in the ops' time unit
  // Hardware work queues feeding every engine (Hyper-Q: CUDA_DEVICE_MAX_CONNECTIONS, 8 by
  // default). Stream s uses queue s % hardware_queues; the in-issue-order rule holds only within
  // one queue. 1 = a single queue for the whole device (pre-Kepler GPUs).
  int hardware_queues = kDefaultHardwareQueues;
};

struct Schedule {
  std::vector<double> start;
  std::vector<double> end;
  double makespan = 0;
};

// Ops in host issue order. Throws std::invalid_argument when an op waits on a later op.
Schedule simulate(const std::vector<Op>& ops, const EngineConfig& config);

// The classic copy → kernel → copy pipeline over `chunks`, each chunk on stream (i % streams).
enum class IssueOrder {
  depth_first,    // for each chunk: H2D, kernel, D2H
  breadth_first,  // all H2D, then all kernels, then all D2H
};
struct PipelineStages {
  double h2d = 0;
  double kernel = 0;
  double d2h = 0;
};
std::vector<Op> pipeline_ops(int chunks, int streams, const PipelineStages& per_chunk,
                             IssueOrder order, bool pageable);

// Double buffering with one transfer stream (0) and one compute stream (1) joined by events:
// the host issues H2D 0, then for each chunk c: kernel c (waits for H2D c), H2D c+1, D2H c
// (waits for kernel c). Uploading c+1 before downloading c keeps the compute engine fed while
// both copy directions share the transfer stream's order.
std::vector<Op> transfer_compute_ops(int chunks, const PipelineStages& per_chunk);

// Batches that each run a fixed chain of stages (e.g. H2D, L kernels, D2H), batch b on stream
// (b % streams), issued batch after batch (depth first). With host_waits_each_op every op is
// host-synchronous: the host issues the next one only after it ends (a sync after each op).
struct Stage {
  OpKind kind = OpKind::kernel;
  double duration = 0;
};
std::vector<Op> batch_chain_ops(int batches, int streams, const std::vector<Stage>& stages,
                                bool host_waits_each_op);

}  // namespace cudalab
