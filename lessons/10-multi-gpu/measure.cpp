// Lesson 10's experiment: what links the GPUs, how fast a copy crosses that link, and a training
// step whose gradient all-reduces (NCCL) run after, or beside, the backward pass.
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/host_pattern.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/nccl_loader.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "model.hpp"

namespace cudalab::multi_gpu {

namespace {

constexpr std::uint64_t kSmallCopyBytes = 4096;
constexpr int kHoldUs = 200;  // far longer than enqueuing two copies takes
// A link left idle drops into a low-power state, and the first copy after it runs slower: on the
// two H100s (NV18), after 50 ms of idle host work one 64 MiB copy ran at 190 GB/s one way and
// 470 both ways, against 374 and 715 right after a 4 MiB copy (20 ms idle did not slow it).
// So every timed peer copy follows an untimed one of kWarmBytes in stream order, and the cold
// case is measured on its own, after kLinkIdle.
constexpr std::uint64_t kWarmBytes = 4ull << 20;
constexpr auto kLinkIdle = std::chrono::milliseconds(100);
constexpr int kColdSamples = 5;
constexpr std::uint32_t kSeedForward = 0xA0B1C2D3u;   // the pattern GPU 0 sends
constexpr std::uint32_t kSeedBackward = 0x3D2C1B0Au;  // the pattern GPU 1 sends

// Makes `device` current for a scope (streams, events, buffers and launches belong to the
// current device) and restores the previous one.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    CUDALAB_CUDA_CHECK(cudaGetDevice(&previous_));
    CUDALAB_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() { CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous_)); }
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

// Lets `from` read and write `to`'s memory directly for as long as it lives.
class PeerAccess {
 public:
  PeerAccess(int from, int to) : from_(from), to_(to) {
    const DeviceScope scope(from);
    const cudaError_t err = cudaDeviceEnablePeerAccess(to, 0);
    if (err == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // someone else enabled it and will disable it
      return;
    }
    CUDALAB_CUDA_CHECK(err);
    enabled_ = true;
  }
  ~PeerAccess() {
    if (!enabled_) return;
    int previous = 0;
    CUDALAB_CUDA_CHECK_NOEXCEPT(cudaGetDevice(&previous));
    CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(from_));
    CUDALAB_CUDA_CHECK_NOEXCEPT(cudaDeviceDisablePeerAccess(to_));
    CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(previous));
  }
  PeerAccess(const PeerAccess&) = delete;
  PeerAccess& operator=(const PeerAccess&) = delete;

 private:
  int from_;
  int to_;
  bool enabled_ = false;
};

int gpus_to_use(const Params& p, int visible) {
  if (visible < kMinGpus) {
    throw WaivedError(fmt::format("lesson 10 needs at least {} GPUs and found {}; a run recorded on two H100s: "
                                  "cudalab show course-notes/runs/10-multi-gpu.json",
                                  kMinGpus, visible));
  }
  if (p.gpus && *p.gpus > visible) {
    throw WaivedError(fmt::format("--gpus {}: this machine has only {} GPUs", *p.gpus, visible));
  }
  return p.gpus.value_or(std::min(visible, kMaxGpus));
}

GpuFacts query_gpu(int device) {
  const DeviceInfo info = query_device(device);
  return GpuFacts{summary_of(info), info.priority_least, info.priority_greatest};
}

PeerLink query_link(int from, int to) {
  PeerLink link{from, to};
  int can_access = 0, atomics = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, from, to));
  CUDALAB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&link.performance_rank, cudaDevP2PAttrPerformanceRank, from, to));
  CUDALAB_CUDA_CHECK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, from, to));
  link.can_access = can_access != 0;
  link.native_atomics = atomics != 0;
  return link;
}

// ---- peer copies between GPUs a and b ------------------------------------------------------

struct CopyRig {
  int a;
  int b;
  std::uint64_t bytes;
  DeviceBuffer<std::uint8_t> src_a, dst_a;  // on GPU a
  DeviceBuffer<std::uint8_t> src_b, dst_b;  // on GPU b
  DeviceBuffer<std::uint8_t> warm_a, warm_b;  // the untimed copy that wakes the link: never checked
  PinnedBuffer<std::uint8_t> staging, readback, poison;
  Stream on_a, on_b;
  EventTimer timer_a, timer_b;
  Event hop_a, done_b;  // cross-GPU joins: b waits for a's hop, a waits for b's end

  CopyRig(int gpu_a, int gpu_b, std::uint64_t n)
      : a(gpu_a), b(gpu_b), bytes(n),
        src_a(on_device(a, [&] { return DeviceBuffer<std::uint8_t>(n); })),
        dst_a(on_device(a, [&] { return DeviceBuffer<std::uint8_t>(n); })),
        src_b(on_device(b, [&] { return DeviceBuffer<std::uint8_t>(n); })),
        dst_b(on_device(b, [&] { return DeviceBuffer<std::uint8_t>(n); })),
        warm_a(on_device(a, [] { return DeviceBuffer<std::uint8_t>(kWarmBytes); })),
        warm_b(on_device(b, [] { return DeviceBuffer<std::uint8_t>(kWarmBytes); })),
        staging(n), readback(n), poison(n),
        on_a(on_device(a, [] { return Stream(); })),
        on_b(on_device(b, [] { return Stream(); })),
        timer_a(on_device(a, [] { return EventTimer(); })),
        timer_b(on_device(b, [] { return EventTimer(); })),
        hop_a(on_device(a, [] { return Event(cudaEventDisableTiming); })),
        done_b(on_device(b, [] { return Event(cudaEventDisableTiming); })) {
    fill_pattern(staging.data(), n, kSeedForward);
    CUDALAB_CUDA_CHECK(cudaMemcpy(src_a.data(), staging.data(), n, cudaMemcpyHostToDevice));
    fill_pattern(staging.data(), n, kSeedBackward);
    CUDALAB_CUDA_CHECK(cudaMemcpy(src_b.data(), staging.data(), n, cudaMemcpyHostToDevice));
    CUDALAB_CUDA_CHECK(cudaMemset(warm_a.data(), 0, kWarmBytes));  // defined bytes, for the sanitizer
    CUDALAB_CUDA_CHECK(cudaMemset(warm_b.data(), 0, kWarmBytes));
  }
};

// Writes the complement of the pattern over the first `n` bytes of `dst`, so a byte no copy
// wrote cannot pass the check.
void poison(CopyRig& r, std::uint8_t* dst, std::uint64_t n, std::uint32_t seed) {
  poison_against_pattern(r.poison.data(), n, seed);
  CUDALAB_CUDA_CHECK(cudaMemcpy(dst, r.poison.data(), n, cudaMemcpyHostToDevice));
}

void check(CopyRig& r, const std::uint8_t* dst, std::uint64_t n, std::uint32_t seed, Tally& tally) {
  CUDALAB_CUDA_CHECK(cudaMemcpy(r.readback.data(), dst, n, cudaMemcpyDeviceToHost));
  tally.add(count_pattern_matches(r.readback.data(), n, seed), n);
}

// Whether a timed peer copy finds its link awake (an untimed copy just before it, in stream
// order) or asleep (the host idles kLinkIdle first, as a training step's host work may).
enum class Link { warm, cold };

// Each direction the timed copy will use gets an untimed copy on its own stream, or an idle wait.
void prepare_link(CopyRig& r, Link link, bool both_directions) {
  if (link == Link::cold) {
    std::this_thread::sleep_for(kLinkIdle);
    return;
  }
  CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(r.warm_b.data(), r.b, r.warm_a.data(), r.a, kWarmBytes, r.on_a));
  if (both_directions) {
    CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(r.warm_a.data(), r.a, r.warm_b.data(), r.b, kWarmBytes, r.on_b));
  }
}

double one_way(CopyRig& r, std::uint64_t n, Tally& tally, Link link = Link::warm) {
  poison(r, r.dst_b.data(), n, kSeedForward);
  prepare_link(r, link, false);
  r.timer_a.start(r.on_a);
  CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(r.dst_b.data(), r.b, r.src_a.data(), r.a, n, r.on_a));
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  check(r, r.dst_b.data(), n, kSeedForward, tally);
  return ms;
}

// a -> b on a's stream and b -> a on b's stream, forked from and joined back into a's stream.
// Both wait behind a short hold on a's stream: otherwise a's copy starts while the host is still
// enqueuing b's (measured on the H200s: a third of the runs overlapped only in part). The warm-up
// copies run before the hold ends.
double both_ways(CopyRig& r, Tally& tally, Link link = Link::warm) {
  poison(r, r.dst_b.data(), r.bytes, kSeedForward);
  poison(r, r.dst_a.data(), r.bytes, kSeedBackward);
  prepare_link(r, link, true);
  {
    const DeviceScope scope(r.a);
    launch_hold(r.on_a, kHoldUs);
  }
  r.timer_a.start(r.on_a);
  r.hop_a.record(r.on_a);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(r.on_b, r.hop_a.get(), 0));
  CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(r.dst_b.data(), r.b, r.src_a.data(), r.a, r.bytes, r.on_a));
  CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(r.dst_a.data(), r.a, r.src_b.data(), r.b, r.bytes, r.on_b));
  r.done_b.record(r.on_b);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(r.on_a, r.done_b.get(), 0));
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  check(r, r.dst_b.data(), r.bytes, kSeedForward, tally);
  check(r, r.dst_a.data(), r.bytes, kSeedBackward, tally);
  return ms;
}

// The cold samples: no warm-up and no adaptive repeats, each after its own idle wait.
std::vector<double> cold_samples(const std::function<double()>& copy) {
  std::vector<double> ms;
  for (int i = 0; i < kColdSamples; ++i) ms.push_back(copy());
  return ms;
}

// What a program without peer access does: a -> pinned host memory, then host -> b.
double staged(CopyRig& r, Tally& tally) {
  poison(r, r.dst_b.data(), r.bytes, kSeedForward);
  r.timer_a.start(r.on_a);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.staging.data(), r.src_a.data(), r.bytes, cudaMemcpyDeviceToHost, r.on_a));
  r.hop_a.record(r.on_a);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(r.on_b, r.hop_a.get(), 0));
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.dst_b.data(), r.staging.data(), r.bytes, cudaMemcpyHostToDevice, r.on_b));
  r.done_b.record(r.on_b);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(r.on_a, r.done_b.get(), 0));
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  check(r, r.dst_b.data(), r.bytes, kSeedForward, tally);
  return ms;
}

// The staged copy's two hops, each alone: the model's inputs for the staged time.
double first_hop(CopyRig& r, Tally& tally) {
  poison_against_pattern(r.staging.data(), r.bytes, kSeedForward);
  r.timer_a.start(r.on_a);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.staging.data(), r.src_a.data(), r.bytes, cudaMemcpyDeviceToHost, r.on_a));
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  tally.add(count_pattern_matches(r.staging.data(), r.bytes, kSeedForward), r.bytes);
  return ms;
}

double second_hop(CopyRig& r, Tally& tally) {
  fill_pattern(r.staging.data(), r.bytes, kSeedForward);
  poison(r, r.dst_b.data(), r.bytes, kSeedForward);
  r.timer_b.start(r.on_b);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.dst_b.data(), r.staging.data(), r.bytes, cudaMemcpyHostToDevice, r.on_b));
  r.timer_b.stop(r.on_b);
  const double ms = r.timer_b.elapsed_ms();
  check(r, r.dst_b.data(), r.bytes, kSeedForward, tally);
  return ms;
}

PeerCopies measure_peer_copies(const Params& p, const Repetitions& reps, int a, int b) {
  PeerCopies c;
  int ab = 0, ba = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&ab, a, b));
  CUDALAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&ba, b, a));
  c.peer_access = ab != 0 && ba != 0;
  std::optional<PeerAccess> forward, backward;
  if (c.peer_access) {
    forward.emplace(a, b);
    backward.emplace(b, a);
  }
  c.small_bytes = kSmallCopyBytes;
  c.large_bytes = p.copy_size;
  c.mid_bytes = p.copy_size / 16;
  CopyRig r(a, b, p.copy_size);
  c.small_ms = repeat(reps, [&] { return one_way(r, c.small_bytes, c.bytes); });
  c.large_ms = repeat(reps, [&] { return one_way(r, c.large_bytes, c.bytes); });
  c.mid_ms = repeat(reps, [&] { return one_way(r, c.mid_bytes, c.bytes); });
  c.both_ms = repeat(reps, [&] { return both_ways(r, c.bytes); });
  c.cold_one_ms = cold_samples([&] { return one_way(r, c.large_bytes, c.bytes, Link::cold); });
  c.cold_both_ms = cold_samples([&] { return both_ways(r, c.bytes, Link::cold); });
  c.staged_ms = repeat(reps, [&] { return staged(r, c.bytes); });
  c.d2h_ms = repeat(reps, [&] { return first_hop(r, c.bytes); });
  c.h2d_ms = repeat(reps, [&] { return second_hop(r, c.bytes); });
  return c;
}

// ---- the training step ---------------------------------------------------------------------

// Everything one GPU needs for the step.
struct GpuLane {
  int device = 0;
  DeviceBuffer<float> grads;  // layers x count, layer after layer
  Stream compute;
  Stream comm_same;  // the compute stream's priority
  Stream comm_high;  // the device's most urgent priority
  EventTimer timer;
  std::vector<Event> layer_ready;
  Event comm_done;
};

using StreamOf = Stream GpuLane::*;

GpuLane make_lane(const GpuFacts& gpu, int layers, std::size_t count) {
  const DeviceScope scope(gpu.summary.index);
  GpuLane lane{gpu.summary.index,
               DeviceBuffer<float>(static_cast<std::size_t>(layers) * count),
               Stream(cudaStreamNonBlocking, gpu.least_priority),
               Stream(cudaStreamNonBlocking, gpu.least_priority),
               Stream(cudaStreamNonBlocking, gpu.greatest_priority),
               EventTimer(),
               {},
               Event(cudaEventDisableTiming)};
  for (int l = 0; l < layers; ++l) lane.layer_ready.emplace_back(cudaEventDisableTiming);
  // Never read before written by the step, but the all-reduce timed alone reads it.
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(lane.grads.data(), 0, lane.grads.bytes(), lane.compute));
  lane.compute.synchronize();
  return lane;
}

struct StepRig {
  std::vector<GpuLane> lanes;
  std::unique_ptr<NcclComms> comms;
  int layers = 0;
  std::size_t count = 0;  // gradient elements per layer
  int layer_blocks = 0;
  std::vector<float> expected;  // the sum over GPUs, every layer and element
  PinnedBuffer<float> readback;
};

void enqueue_layer(StepRig& rig, std::size_t rank, int layer) {
  GpuLane& lane = rig.lanes[rank];
  const DeviceScope scope(lane.device);
  launch_layer(lane.compute, lane.grads.data() + static_cast<std::size_t>(layer) * rig.count, rig.count,
               static_cast<int>(rank), layer, rig.layer_blocks);
}

// One layer's gradients summed in place on every GPU, each GPU's share on its `comm` stream.
void all_reduce_layer(StepRig& rig, int layer, StreamOf comm) {
  NcclGroup group;
  for (std::size_t rank = 0; rank < rig.lanes.size(); ++rank) {
    GpuLane& lane = rig.lanes[rank];
    float* grad = lane.grads.data() + static_cast<std::size_t>(layer) * rig.count;
    CUDALAB_NCCL_CHECK(nccl().all_reduce(grad, grad, rig.count, ncclFloat32, ncclSum, rig.comms->operator[](rank),
                                         (lane.*comm).get()));
  }
  group.end();
}

// (a) with comm == &GpuLane::compute: every layer, then every all-reduce, in one stream.
// (b), (c): each all-reduce on the comm stream as soon as its layer's gradient is ready; the
// compute stream waits for the last one, so the step ends when both are done.
void enqueue_step(StepRig& rig, StreamOf comm) {
  const bool one_stream = comm == &GpuLane::compute;
  for (auto& lane : rig.lanes) lane.timer.start(lane.compute);
  for (int l = 0; l < rig.layers; ++l) {
    for (std::size_t rank = 0; rank < rig.lanes.size(); ++rank) {
      enqueue_layer(rig, rank, l);
      if (one_stream) continue;
      GpuLane& lane = rig.lanes[rank];
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

// The slowest GPU's time from its start event to its stop event.
double slowest_lane_ms(StepRig& rig) {
  double slowest = 0;
  for (auto& lane : rig.lanes) slowest = std::max(slowest, static_cast<double>(lane.timer.elapsed_ms()));
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

// One step; `tally` may be null: the traced run skips the poisoning and the read-back, which
// only serve the check.
double run_step(StepRig& rig, StreamOf comm, Tally* tally) {
  if (tally != nullptr) poison_gradients(rig);
  enqueue_step(rig, comm);
  const double ms = slowest_lane_ms(rig);
  if (tally != nullptr) check_gradients(rig, *tally);
  return ms;
}

double layer_alone(StepRig& rig) {
  for (std::size_t rank = 0; rank < rig.lanes.size(); ++rank) {
    rig.lanes[rank].timer.start(rig.lanes[rank].compute);
    enqueue_layer(rig, rank, 0);
    rig.lanes[rank].timer.stop(rig.lanes[rank].compute);
  }
  return slowest_lane_ms(rig);
}

double all_reduce_alone(StepRig& rig) {
  for (auto& lane : rig.lanes) lane.timer.start(lane.compute);
  all_reduce_layer(rig, 0, &GpuLane::compute);
  for (auto& lane : rig.lanes) lane.timer.stop(lane.compute);
  return slowest_lane_ms(rig);
}

StepRig make_step_rig(const Params& p, const std::vector<GpuFacts>& gpus, std::vector<int> devices) {
  StepRig rig;
  rig.layers = p.layers;
  rig.count = static_cast<std::size_t>(p.grad_size / sizeof(float));
  for (const auto& gpu : gpus) rig.lanes.push_back(make_lane(gpu, p.layers, rig.count));
  rig.comms = std::make_unique<NcclComms>(devices);
  const int blocks_per_sm = on_device(devices[0], [] { return layer_blocks_per_sm(); });
  if (blocks_per_sm <= 0) throw WaivedError("the layer kernel cannot run on this device");
  rig.layer_blocks = layer_block_count(gpus[0].summary.sm_count, blocks_per_sm, p.layer_us, kLayerBlockUs);
  rig.expected.resize(static_cast<std::size_t>(p.layers) * rig.count);
  for (int l = 0; l < p.layers; ++l) {
    for (std::size_t i = 0; i < rig.count; ++i) {
      float sum = 0;
      for (std::size_t rank = 0; rank < gpus.size(); ++rank) sum += gradient_value(static_cast<int>(rank), l, i);
      rig.expected[static_cast<std::size_t>(l) * rig.count + i] = sum;
    }
  }
  rig.readback = PinnedBuffer<float>(rig.expected.size());
  return rig;
}

void trace_step(StepRig& rig, std::vector<Timeline>& timelines, StreamOf comm, const std::string& title) {
  std::vector<NamedLane> lanes;
  for (std::size_t rank = 0; rank < rig.lanes.size(); ++rank) {
    lanes.push_back({rig.lanes[rank].compute, fmt::format("GPU {} compute", rank)});
    if (comm != &GpuLane::compute) lanes.push_back({rig.lanes[rank].*comm, fmt::format("GPU {} comm", rank)});
  }
  traced_run(
      timelines, title, lanes, [&](TraceSession&) { (void)run_step(rig, comm, nullptr); }, "timeline",
      TraceScope::all_devices);
}

TrainingStep measure_training_step(const Params& p, const RunContext& ctx, const std::vector<GpuFacts>& gpus,
                                   std::vector<Timeline>& timelines) {
  std::vector<int> devices;
  for (const auto& gpu : gpus) devices.push_back(gpu.summary.index);
  TrainingStep s;
  CUDALAB_NCCL_CHECK(nccl().get_version(&s.nccl_version));
  StepRig rig = make_step_rig(p, gpus, devices);
  s.layer_blocks = rig.layer_blocks;
  s.compute_priority = on_device(devices[0], [&] { return rig.lanes[0].compute.priority(); });
  s.comm_priority = on_device(devices[0], [&] { return rig.lanes[0].comm_high.priority(); });
  s.layer_ms = repeat(ctx.reps, [&] { return layer_alone(rig); });
  s.allreduce_ms = repeat(ctx.reps, [&] { return all_reduce_alone(rig); });
  s.serial_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::compute, &s.gradients); });
  s.overlapped_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::comm_same, &s.gradients); });
  s.priority_ms = repeat(ctx.reps, [&] { return run_step(rig, &GpuLane::comm_high, &s.gradients); });
  if (ctx.tracing()) {
    trace_step(rig, timelines, &GpuLane::compute, "(a) every layer, then every all-reduce, one stream per GPU");
    trace_step(rig, timelines, &GpuLane::comm_same, "(b) each all-reduce on a comm stream as its layer ends");
    trace_step(rig, timelines, &GpuLane::comm_high,
               fmt::format("(c) as (b), comm stream at priority {}", s.comm_priority));
  }
  return s;
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m;
  m.visible_gpus = device_count();
  const int n = gpus_to_use(p, m.visible_gpus);
  (void)nccl();  // waive before any work when NCCL is missing
  for (int d = 0; d < n; ++d) m.gpus.push_back(query_gpu(d));
  for (int from = 0; from < n; ++from) {
    for (int to = 0; to < n; ++to) {
      if (from != to) m.links.push_back(query_link(from, to));
    }
  }
  m.copies = in_phase("peer copies", [&] { return measure_peer_copies(p, ctx.reps, 0, 1); });
  m.step = in_phase("training step", [&] { return measure_training_step(p, ctx, m.gpus, m.timelines); });
  return m;
}

}  // namespace cudalab::multi_gpu
