// The training step: per GPU, `layers` layer kernels, each followed by an all-reduce of its
// gradient, run three ways. One sample is the slowest GPU's time, start event to stop event.
#include "step.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/core/repetitions.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "model.hpp"

namespace cudalab::multi_gpu {

namespace {

// Before each timed run every GPU holds this long, then all-reduces one float: the GPUs leave
// that all-reduce together, and by then the host (or every rank's host) has long finished
// enqueuing the run. So a figure is the GPUs' time alone: neither another process being late
// nor this host's own enqueuing counts. Without the hold, one process driving both GPUs timed
// a 16 MiB all-reduce at 0.095 ms where two ranks took 0.079 (two H100s, 2026-11-27), because
// its start events ran while the host was still issuing the NCCL group.
constexpr int kLineUpHoldUs = 1000;

GpuLane make_lane(const GpuFacts& gpu, int layers, std::size_t count) {
  const DeviceScope scope(gpu.summary.index);
  GpuLane lane{gpu.summary.index,
               DeviceBuffer<float>(static_cast<std::size_t>(layers) * count),
               DeviceBuffer<float>(1),
               Stream(cudaStreamNonBlocking, gpu.least_priority),
               Stream(cudaStreamNonBlocking, gpu.least_priority),
               Stream(cudaStreamNonBlocking, gpu.greatest_priority),
               EventTimer(),
               {},
               Event(cudaEventDisableTiming)};
  for (int l = 0; l < layers; ++l) lane.layer_ready.emplace_back(cudaEventDisableTiming);
  // Never read before written by the step, but the all-reduce timed alone reads it.
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(lane.grads.data(), 0, lane.grads.bytes(), lane.compute));
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(lane.token.data(), 0, lane.token.bytes(), lane.compute));
  lane.compute.synchronize();
  return lane;
}

// One all-reduce, in place, of `n` floats at `data` of every GPU this process drives, each on
// its lane's `stream`. One process driving several GPUs issues them in one NCCL group, or the
// first call would wait forever for its peers; a rank issues its own.
template <typename Buffer>
void all_reduce(StepRig& rig, Buffer&& data_of, std::size_t n, StreamOf stream) {
  StepComms& c = *rig.comms;
  if (c.rank) {
    GpuLane& lane = rig.lanes.front();
    float* data = data_of(lane);
    c.rank->settle(nccl().all_reduce(data, data, n, ncclFloat32, ncclSum, c.rank->get(), (lane.*stream).get()),
                   "ncclAllReduce");
    return;
  }
  NcclGroup group;
  for (std::size_t i = 0; i < rig.lanes.size(); ++i) {
    GpuLane& lane = rig.lanes[i];
    float* data = data_of(lane);
    CUDALAB_NCCL_CHECK(nccl().all_reduce(data, data, n, ncclFloat32, ncclSum, (*c.all)[i], (lane.*stream).get()));
  }
  group.end();
}

void all_reduce_layer(StepRig& rig, int layer, StreamOf comm) {
  const std::size_t offset = static_cast<std::size_t>(layer) * rig.count;
  all_reduce(rig, [&](GpuLane& lane) { return lane.grads.data() + offset; }, rig.count, comm);
}

// Every GPU starts each timed run together, with the run already enqueued (see kLineUpHoldUs).
void line_up_gpus(StepRig& rig) {
  for (auto& lane : rig.lanes) {
    const DeviceScope scope(lane.device);
    launch_hold(lane.compute, kLineUpHoldUs);
  }
  all_reduce(rig, [](GpuLane& lane) { return lane.token.data(); }, 1, &GpuLane::compute);
}

void enqueue_layer(StepRig& rig, std::size_t lane_index, int layer) {
  GpuLane& lane = rig.lanes[lane_index];
  const DeviceScope scope(lane.device);
  const int rank = rig.comms->first_rank + static_cast<int>(lane_index);
  launch_layer(lane.compute, lane.grads.data() + static_cast<std::size_t>(layer) * rig.count, rig.count, rank, layer,
               rig.layer_blocks);
}

// (a) with comm == &GpuLane::compute: every layer, then every all-reduce, in one stream.
// (b), (c): each all-reduce on the comm stream as soon as its layer's gradient is ready; the
// compute stream waits for the last one, so the step ends when both are done.
void enqueue_step(StepRig& rig, StreamOf comm) {
  const bool one_stream = comm == &GpuLane::compute;
  for (auto& lane : rig.lanes) lane.timer.start(lane.compute);
  for (int l = 0; l < rig.layers; ++l) {
    for (std::size_t i = 0; i < rig.lanes.size(); ++i) {
      enqueue_layer(rig, i, l);
      if (one_stream) continue;
      GpuLane& lane = rig.lanes[i];
      lane.layer_ready[static_cast<std::size_t>(l)].record(lane.compute);
      CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(lane.*comm, lane.layer_ready[static_cast<std::size_t>(l)].get(), 0));
    }
    if (!one_stream) all_reduce_layer(rig, l, comm);
  }
  if (one_stream) {
    for (int l = 0; l < rig.layers; ++l) all_reduce_layer(rig, l, comm);
  } else {
    for (auto& lane : rig.lanes) {
      lane.comm_done.record(lane.*comm);
      CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(lane.compute, lane.comm_done.get(), 0));
    }
  }
  for (auto& lane : rig.lanes) lane.timer.stop(lane.compute);
}

// The slowest GPU's time from its start event to its stop event. A rank first waits for its
// GPU with a deadline: a dead peer must not leave it blocked in cudaEventSynchronize.
double slowest_lane_ms(StepRig& rig) {
  double slowest = 0;
  for (auto& lane : rig.lanes) {
    if (rig.comms->rank) rig.comms->rank->wait(lane.compute.get(), "the step's GPU work");
    slowest = std::max(slowest, static_cast<double>(lane.timer.elapsed_ms()));
  }
  return slowest;
}

void poison_gradients(StepRig& rig) {
  for (auto& lane : rig.lanes) {
    // On the compute stream: a plain cudaMemset goes to the legacy default stream, which the
    // non-blocking step streams do not wait for. 0xFF bytes make NaN, which equals nothing.
    const DeviceScope scope(lane.device);
    CUDALAB_CUDA_CHECK(cudaMemsetAsync(lane.grads.data(), 0xFF, lane.grads.bytes(), lane.compute));
  }
}

void check_gradients(StepRig& rig, Tally& tally) {
  for (auto& lane : rig.lanes) {
    CUDALAB_CUDA_CHECK(cudaMemcpy(rig.readback.data(), lane.grads.data(), lane.grads.bytes(), cudaMemcpyDeviceToHost));
    std::size_t correct = 0;
    for (std::size_t i = 0; i < rig.expected.size(); ++i) correct += rig.readback[i] == rig.expected[i] ? 1 : 0;
    tally.add(correct, rig.expected.size());
  }
}

}  // namespace

DeviceScope::DeviceScope(int device) {
  CUDALAB_CUDA_CHECK(cudaGetDevice(&previous_));
  CUDALAB_CUDA_CHECK(cudaSetDevice(device));
}

DeviceScope::~DeviceScope() { CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }

int layer_blocks_on(const GpuFacts& gpu, int layer_us) {
  const int blocks_per_sm = on_device(gpu.summary.index, [] { return layer_blocks_per_sm(); });
  if (blocks_per_sm <= 0) throw WaivedError("the layer kernel cannot run on this device");
  return layer_block_count(gpu.summary.sm_count, blocks_per_sm, layer_us, kLayerBlockUs);
}

StepRig make_step_rig(const std::vector<GpuFacts>& gpus, int layers, std::uint64_t grad_bytes, int layer_blocks,
                      StepComms& comms) {
  StepRig rig;
  rig.comms = &comms;
  rig.layers = layers;
  rig.count = static_cast<std::size_t>(grad_bytes / sizeof(float));
  rig.layer_blocks = layer_blocks;
  for (const auto& gpu : gpus) rig.lanes.push_back(make_lane(gpu, layers, rig.count));
  rig.expected.resize(static_cast<std::size_t>(layers) * rig.count);
  for (int l = 0; l < layers; ++l) {
    for (std::size_t i = 0; i < rig.count; ++i) {
      float sum = 0;
      for (int rank = 0; rank < comms.world_size; ++rank) sum += gradient_value(rank, l, i);
      rig.expected[static_cast<std::size_t>(l) * rig.count + i] = sum;
    }
  }
  rig.readback = PinnedBuffer<float>(rig.expected.size());
  return rig;
}

double run_step(StepRig& rig, StreamOf comm, Tally* tally) {
  if (tally != nullptr) poison_gradients(rig);
  line_up_gpus(rig);
  enqueue_step(rig, comm);
  const double ms = slowest_lane_ms(rig);
  if (tally != nullptr) check_gradients(rig, *tally);
  return ms;
}

double layer_alone(StepRig& rig) {
  for (std::size_t i = 0; i < rig.lanes.size(); ++i) {
    rig.lanes[i].timer.start(rig.lanes[i].compute);
    enqueue_layer(rig, i, 0);
    rig.lanes[i].timer.stop(rig.lanes[i].compute);
  }
  return slowest_lane_ms(rig);
}

double all_reduce_alone(StepRig& rig) {
  line_up_gpus(rig);
  for (auto& lane : rig.lanes) lane.timer.start(lane.compute);
  all_reduce_layer(rig, 0, &GpuLane::compute);
  for (auto& lane : rig.lanes) lane.timer.stop(lane.compute);
  return slowest_lane_ms(rig);
}

void trace_steps(StepRig& rig, std::vector<Timeline>& timelines, int comm_priority, bool record) {
  const auto trace = [&](StreamOf comm, const Message& title) {
    if (!record) {  // a rank other than 0: the same all-reduces as rank 0's traced passes, untraced
      for (int pass = 0; pass < kTracedRunPasses; ++pass) (void)run_step(rig, comm, nullptr);
      return;
    }
    std::vector<NamedLane> lanes;
    for (std::size_t i = 0; i < rig.lanes.size(); ++i) {
      const int gpu = rig.comms->first_rank + static_cast<int>(i);
      lanes.push_back({rig.lanes[i].compute, msg("GPU {gpu} compute", arg("gpu", gpu))});
      if (comm != &GpuLane::compute) lanes.push_back({rig.lanes[i].*comm, msg("GPU {gpu} comm", arg("gpu", gpu))});
    }
    traced_run(
        timelines, title, lanes, [&](TraceSession&) { (void)run_step(rig, comm, nullptr); }, "timeline",
        TraceScope::all_devices);
  };
  trace(&GpuLane::compute, "(a) every layer, then every all-reduce, one stream per GPU");
  trace(&GpuLane::comm_same, "(b) each all-reduce on a comm stream as its layer ends");
  trace(&GpuLane::comm_high, msg("(c) as (b), comm stream at priority {priority}", arg("priority", comm_priority)));
}

namespace {

// Where communication outgrows the compute it could hide: the step again at each size of the
// sweep, with the same layers.
std::vector<SweepPoint> measure_sweep(const Params& p, const Repetitions& reps, const std::vector<GpuFacts>& gpus,
                                      StepComms& comms, TrainingStep& s) {
  std::vector<SweepPoint> sweep;
  for (const std::uint64_t bytes : sweep_sizes(p.grad_size)) {
    StepRig rig = make_step_rig(gpus, p.layers, bytes, s.layer_blocks, comms);
    SweepPoint point;
    point.grad_bytes = bytes;
    point.layer_ms = repeat(reps, [&] { return layer_alone(rig); });
    point.allreduce_ms = repeat(reps, [&] { return all_reduce_alone(rig); });
    point.serial_ms = repeat(reps, [&] { return run_step(rig, &GpuLane::compute, &s.gradients); });
    point.priority_ms = repeat(reps, [&] { return run_step(rig, &GpuLane::comm_high, &s.gradients); });
    sweep.push_back(std::move(point));
  }
  return sweep;
}

}  // namespace

TrainingStep measure_training_step(const Params& p, const RunContext& ctx, const std::vector<GpuFacts>& gpus,
                                   StepComms& comms, std::vector<Timeline>& timelines) {
  TrainingStep s;
  CUDALAB_NCCL_CHECK(nccl().get_version(&s.nccl_version));
  s.layer_blocks = layer_blocks_on(gpus.front(), p.layer_us);
  StepRig rig = make_step_rig(gpus, p.layers, p.grad_size, s.layer_blocks, comms);
  const GpuLane& first = rig.lanes.front();
  s.compute_priority = on_device(first.device, [&] { return first.compute.priority(); });
  s.comm_priority = on_device(first.device, [&] { return first.comm_high.priority(); });
  s.layer_ms = repeat(ctx.reps, [&] { return layer_alone(rig); });
  s.allreduce_ms = repeat(ctx.reps, [&] { return all_reduce_alone(rig); });
  s.serial_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::compute, &s.gradients); });
  s.overlapped_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::comm_same, &s.gradients); });
  s.priority_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::comm_high, &s.gradients); });
  s.sweep = measure_sweep(p, ctx.reps, gpus, comms, s);
  if (ctx.tracing()) trace_steps(rig, timelines, s.comm_priority, !ctx.rank || ctx.rank->rank == 0);
  return s;
}

}  // namespace cudalab::multi_gpu
