// Lesson 10's simulated training step on the GPUs this process drives: every GPU, when one
// process drives them all, or its own one, when it is one rank of a run of processes (one per
// GPU, as training runs). The timed pieces are the same either way; only how the all-reduces
// reach NCCL differs (StepComms).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/core/tally.hpp"
#include "common/core/timeline.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/nccl_loader.hpp"
#include "common/core/run_context.hpp"
#include "measure.hpp"
#include "params.hpp"

namespace cudalab::multi_gpu {

// Makes `device` current for a scope (streams, events, buffers and launches belong to the
// current device) and restores the previous one.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

template <typename Make>
auto on_device(int device, Make&& make) {
  const DeviceScope scope(device);
  return make();
}

// How this process's all-reduces reach NCCL: one communicator per GPU of this process
// (ncclCommInitAll), issued together in one group; or this process's rank of a communicator
// whose ranks are processes, bootstrapped from rank 0's unique id.
struct StepComms {
  std::unique_ptr<NcclComms> all;
  std::unique_ptr<NcclRankComm> rank;
  int world_size = 0;  // GPUs summed over, in every process
  int first_rank = 0;  // the rank of this process's first GPU
};

// Everything one GPU needs for the step.
struct GpuLane {
  int device = 0;
  DeviceBuffer<float> grads;  // layers x count, layer after layer
  DeviceBuffer<float> token;  // one float, all-reduced to line the ranks up before a timed run
  Stream compute;
  Stream comm_same;  // the compute stream's priority
  Stream comm_high;  // the device's most urgent priority
  EventTimer timer;
  std::vector<Event> layer_ready;
  Event comm_done;
};

using StreamOf = Stream GpuLane::*;

struct StepRig {
  std::vector<GpuLane> lanes;
  StepComms* comms = nullptr;  // not owned: one communicator serves every rig of a run
  int layers = 0;
  std::size_t count = 0;  // gradient elements per layer
  int layer_blocks = 0;
  std::vector<float> expected;  // the sum over every rank, every layer and element
  PinnedBuffer<float> readback;
};

// Blocks per layer kernel on `gpu` for layers of `layer_us`.
int layer_blocks_on(const GpuFacts& gpu, int layer_us);

// A rig for `gpus` (this process's), `layers` layers of `grad_bytes` each.
StepRig make_step_rig(const std::vector<GpuFacts>& gpus, int layers, std::uint64_t grad_bytes, int layer_blocks,
                      StepComms& comms);

// One step, (a) with comm == &GpuLane::compute, else (b) or (c) on that stream; the slowest of
// this process's GPUs, in ms. `tally` may be null (the traced run): no poisoning, no check.
double run_step(StepRig& rig, StreamOf comm, Tally* tally);
double layer_alone(StepRig& rig);
double all_reduce_alone(StepRig& rig);

// The three variants once more each, traced when `record` (one lane per GPU and stream of this
// process), else only run: a rank that does not report still takes part in every all-reduce.
void trace_steps(StepRig& rig, std::vector<Timeline>& timelines, int comm_priority, bool record);

// Everything the step section reports, measured on this process's `gpus` through `comms`: the
// parts alone, the three variants, the gradient-size sweep, and (when ctx asks) the traces.
// Every rank of a run calls NCCL the same number of times in the same order: the repetitions
// are fixed counts, never adaptive.
TrainingStep measure_training_step(const Params& p, const RunContext& ctx, const std::vector<GpuFacts>& gpus,
                                   StepComms& comms, std::vector<Timeline>& timelines);

}  // namespace cudalab::multi_gpu
