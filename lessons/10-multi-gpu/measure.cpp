// Lesson 10's experiment: what links the GPUs, how fast a copy crosses that link, and a training
// step whose gradient all-reduces (NCCL) run after, or beside, the backward pass.
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <numeric>
#include <thread>

#include "common/core/errors.hpp"
#include "common/core/host_pattern.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/nccl_loader.hpp"
#include "kernels.hpp"
#include "model.hpp"
#include "rank_measure.hpp"
#include "run_setting.hpp"
#include "step.hpp"

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
    throw WaivedError(msg("lesson 10 needs at least {needed} GPUs and found {found}; a run recorded on two H100s: "
                          "cudalab show course-notes/runs/10-multi-gpu.json",
                          arg("needed", kMinGpus), arg("found", visible)));
  }
  if (p.gpus && *p.gpus > visible) {
    throw WaivedError(
        msg("--gpus {gpus}: this machine has only {found} GPUs", arg("gpus", *p.gpus), arg("found", visible)));
  }
  return p.gpus.value_or(std::min(visible, kMaxGpus));
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

int sm_count_of(int device) {
  int sms = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

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
  int sm_blocks_a = 0, sm_blocks_b = 0;  // the SM copy kernel filling each GPU once

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
    sm_blocks_a = on_device(a, [] { return sm_copy_blocks_per_sm(); }) * sm_count_of(a);
    sm_blocks_b = on_device(b, [] { return sm_copy_blocks_per_sm(); }) * sm_count_of(b);
    CUDALAB_CUDA_CHECK(cudaMemset(warm_a.data(), 0, kWarmBytes));  // defined bytes, for the sanitizer
    CUDALAB_CUDA_CHECK(cudaMemset(warm_b.data(), 0, kWarmBytes));
  }
};

// Who moves the bytes of a peer copy: a copy engine (cudaMemcpyPeerAsync), or the SMs of the
// sending GPU storing straight into the other GPU's memory (a kernel; needs peer access).
enum class Mover { copy_engines, sms };

// a -> b on a's stream (forward), or b -> a on b's stream.
void enqueue_direction(CopyRig& r, Mover mover, bool forward, std::uint64_t n) {
  const int from = forward ? r.a : r.b, to = forward ? r.b : r.a;
  std::uint8_t* dst = forward ? r.dst_b.data() : r.dst_a.data();
  const std::uint8_t* src = forward ? r.src_a.data() : r.src_b.data();
  cudaStream_t stream = forward ? r.on_a.get() : r.on_b.get();
  if (mover == Mover::copy_engines) {
    CUDALAB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to, src, from, n, stream));
    return;
  }
  const DeviceScope scope(from);
  launch_sm_copy(stream, dst, src, n, forward ? r.sm_blocks_a : r.sm_blocks_b);
}

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

double one_way(CopyRig& r, Mover mover, std::uint64_t n, Tally& tally, Link link = Link::warm) {
  poison(r, r.dst_b.data(), n, kSeedForward);
  prepare_link(r, link, false);
  r.timer_a.start(r.on_a);
  enqueue_direction(r, mover, /*forward=*/true, n);
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  check(r, r.dst_b.data(), n, kSeedForward, tally);
  return ms;
}

// a -> b on a's stream and b -> a on b's stream, forked from and joined back into a's stream.
// Both wait behind a short hold on a's stream: otherwise a's copy starts while the host is still
// enqueuing b's (measured on the H200s: a third of the runs overlapped only in part). The warm-up
// copies run before the hold ends.
double both_ways(CopyRig& r, Mover mover, Tally& tally, Link link = Link::warm) {
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
  enqueue_direction(r, mover, /*forward=*/true, r.bytes);
  enqueue_direction(r, mover, /*forward=*/false, r.bytes);
  r.done_b.record(r.on_b);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(r.on_a, r.done_b.get(), 0));
  r.timer_a.stop(r.on_a);
  const double ms = r.timer_a.elapsed_ms();
  check(r, r.dst_b.data(), r.bytes, kSeedForward, tally);
  check(r, r.dst_a.data(), r.bytes, kSeedBackward, tally);
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
  const Mover engines = Mover::copy_engines;
  c.small_ms = repeat(reps, [&] { return one_way(r, engines, c.small_bytes, c.bytes); });
  c.large_ms = repeat(reps, [&] { return one_way(r, engines, c.large_bytes, c.bytes); });
  c.mid_ms = repeat(reps, [&] { return one_way(r, engines, c.mid_bytes, c.bytes); });
  c.both_ms = repeat(reps, [&] { return both_ways(r, engines, c.bytes); });
  if (c.peer_access) {  // a kernel can store into the other GPU only through peer access
    c.sm_blocks = r.sm_blocks_a;
    c.sm_one_way_ms = repeat(reps, [&] { return one_way(r, Mover::sms, c.large_bytes, c.bytes); });
    c.sm_both_ms = repeat(reps, [&] { return both_ways(r, Mover::sms, c.bytes); });
  }
  // No warm-up (it would wake the link) and a fixed count: each sample waits out its own idle.
  const Repetitions cold{0, kColdSamples, false};
  c.cold_one_ms = repeat(cold, [&] { return one_way(r, engines, c.large_bytes, c.bytes, Link::cold); });
  c.cold_both_ms = repeat(cold, [&] { return both_ways(r, engines, c.bytes, Link::cold); });
  c.staged_ms = repeat(reps, [&] { return staged(r, c.bytes); });
  c.d2h_ms = repeat(reps, [&] { return first_hop(r, c.bytes); });
  c.h2d_ms = repeat(reps, [&] { return second_hop(r, c.bytes); });
  return c;
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  require_transport(p);
  if (ctx.rank) return measure_as_rank(p, ctx);
  Measurements m;
  m.processes.hosts = {host_name()};
  m.nccl_settings = nccl_transport_settings();
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
  StepComms comms;
  std::vector<int> devices;
  for (const auto& gpu : m.gpus) devices.push_back(gpu.summary.index);
  comms.all = std::make_unique<NcclComms>(devices);
  comms.world_size = n;
  m.step = in_phase("training step", [&] { return measure_training_step(p, ctx, m.gpus, comms, m.timelines); });
  return m;
}

}  // namespace cudalab::multi_gpu
