// Lesson 08's experiment: short one-block kernels that could all run side by side, enqueued six
// ways. Every run waits behind a start gate (a kernel on a helper stream, then an event every lane
// waits for), so the host's enqueue time is not in the figure: the GPU starts the work when the
// host is done enqueuing it, unless the host itself was made to wait.
#include "measure.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "common/core/errors.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/event_time.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"

namespace cudalab::default_stream {

namespace {

// Longer than the host needs to enqueue every case (two thread starts included), so the work
// waits for the gate, not for the host.
constexpr std::uint64_t kGateNs = 1'000'000;
constexpr int kMaxLanes = 3;

struct Rig {
  explicit Rig(const Params& params)
      : p(params),
        spin_ns(static_cast<std::uint64_t>(params.kernel_us) * 1000u),
        out(static_cast<std::size_t>(kMaxLanes) * params.kernels * kThreads) {}
  const Params& p;
  std::uint64_t spin_ns;
  DeviceBuffer<std::uint32_t> out;  // one slice of kThreads per kernel
  DeviceBuffer<std::uint32_t> gate_sink{kThreads};  // the gate kernel writes here, unchecked
  Stream gate{cudaStreamNonBlocking};
  Event start;
};

// A stream-ordered temporary: allocated and freed in `stream`'s order, so neither call waits.
class StreamOrderedBuffer {
 public:
  StreamOrderedBuffer(std::size_t count, cudaStream_t stream) : stream_(stream) {
    CUDALAB_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), count * sizeof(std::uint32_t), stream));
  }
  ~StreamOrderedBuffer() { CUDALAB_CUDA_CHECK_NOEXCEPT(cudaFreeAsync(ptr_, stream_)); }
  StreamOrderedBuffer(const StreamOrderedBuffer&) = delete;
  StreamOrderedBuffer& operator=(const StreamOrderedBuffer&) = delete;
  std::uint32_t* data() const { return ptr_; }

 private:
  std::uint32_t* ptr_ = nullptr;
  cudaStream_t stream_;
};

// Poisons the output and opens the gate: `start` fires when the gate kernel ends. The rig's own
// work stays off stream 0: a stream-0 call would tie the blocking streams (the per-thread ones
// too) to it, and on the lab GPU that tie made the per-thread case serialize in some runs.
void open_gate(Rig& r) {
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(r.out.data(), 0xFF, r.out.bytes(), r.gate));
  launch_spin_then_write(r.gate, r.gate_sink.data(), nullptr, 0, kGateNs);
  r.start.record(r.gate);
}

void wait_for_gate(const Rig& r, cudaStream_t lane) { CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(lane, r.start, 0)); }

// The run's total: from the gate to the last lane's end. Checks the `slots` kernels' output.
double finish(Rig& r, const std::vector<Event>& ends, int slots, Tally& tally) {
  CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  double total = 0;
  for (const Event& end : ends) total = std::max(total, elapsed_us(r.start, end));
  std::vector<std::uint32_t> host(static_cast<std::size_t>(slots) * kThreads);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), r.out.data(), host.size() * sizeof(std::uint32_t),
                                     cudaMemcpyDeviceToHost, r.gate));
  r.gate.synchronize();
  std::size_t correct = 0;
  for (std::size_t k = 0; k < host.size(); ++k) {
    const auto slot = static_cast<std::uint32_t>(k / kThreads);
    correct += host[k] == slot_value(slot, static_cast<std::uint32_t>(k % kThreads)) ? 1 : 0;
  }
  tally.add(correct, host.size());
  return total;
}

double run_alone(Rig& r, Tally& tally) {
  open_gate(r);
  const Stream s(cudaStreamNonBlocking);
  wait_for_gate(r, s);
  launch_spin_then_write(s, r.out.data(), nullptr, 0, r.spin_ns);
  std::vector<Event> ends(1);
  ends[0].record(s);
  return finish(r, ends, 1, tally);
}

// Round after round, one kernel on each lane in turn (at most kMaxLanes lanes).
double run_rounds(Rig& r, const std::vector<cudaStream_t>& lanes, Tally& tally) {
  open_gate(r);
  for (cudaStream_t lane : lanes) wait_for_gate(r, lane);
  std::uint32_t slot = 0;
  for (int k = 0; k < r.p.kernels; ++k) {
    for (cudaStream_t lane : lanes) launch_spin_then_write(lane, r.out.data(), nullptr, slot++, r.spin_ns);
  }
  std::vector<Event> ends(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) ends[i].record(lanes[i]);
  return finish(r, ends, static_cast<int>(slot), tally);
}

// A kernel on stream A, one on stream 0, one on stream B. With blocking A and B each stream-0
// kernel waits for A and makes B wait: a staircase.
double run_stream0(Rig& r, const Stream& a, const Stream& b, Tally& tally) {
  return run_rounds(r, {a, cudaStreamLegacy, b}, tally);
}

// This host thread's per-thread default stream in turns with `other`: stream 0 (the CUDA
// documentation says the two synchronize) or a blocking stream (they do not).
double run_per_thread_beside(Rig& r, cudaStream_t other, Tally& tally) {
  return run_rounds(r, {cudaStreamPerThread, other}, tally);
}

// Two host threads, each launching its kernels on `lane` (cudaStreamLegacy or
// cudaStreamPerThread, which each thread resolves to its own stream). A thread's first CUDA
// calls (binding the device, creating its per-thread stream) are slow and not what is measured:
// both threads make them first, and the gate opens only when both are ready.
double run_threads(Rig& r, cudaStream_t lane, int device, TraceSession* trace, Tally& tally) {
  std::vector<Event> ends(2);
  std::exception_ptr errors[2];
  std::mutex trace_mutex;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> cancelled{false};  // the gate failed: the threads launch nothing
  auto work = [&](int t) {
    try {
      CUDALAB_CUDA_CHECK(cudaSetDevice(device));  // the current device is per host thread
      CUDALAB_CUDA_CHECK(cudaStreamSynchronize(lane));  // makes this thread's per-thread stream now
      if (trace != nullptr) {
        const std::lock_guard<std::mutex> lock(trace_mutex);
        trace->name_stream(lane,
                           lane == cudaStreamPerThread ? msg("thread {index}", arg("index", t)) : Message("stream 0"));
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
    ready.fetch_add(1);
    while (!go.load()) std::this_thread::yield();
    if (errors[t] || cancelled.load()) return;
    try {
      wait_for_gate(r, lane);
      for (int k = 0; k < r.p.kernels; ++k) {
        launch_spin_then_write(lane, r.out.data(), nullptr, static_cast<std::uint32_t>(t * r.p.kernels + k),
                               r.spin_ns);
      }
      ends[static_cast<std::size_t>(t)].record(lane);
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::thread first(work, 0), second(work, 1);
  while (ready.load() < 2) std::this_thread::yield();
  try {
    open_gate(r);
  } catch (...) {
    cancelled.store(true);
    go.store(true);
    first.join();
    second.join();
    throw;
  }
  go.store(true);
  first.join();
  second.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return finish(r, ends, 2 * r.p.kernels, tally);
}

// A pipeline whose every step needs a temporary buffer, on two non-blocking streams in turn.
// cudaFree waits for the whole device, so each step's free ends the overlap; the stream-ordered
// pair (cudaMallocAsync / cudaFreeAsync) waits for nothing.
double run_alloc(Rig& r, const Stream& a, const Stream& b, bool stream_ordered, Tally& tally) {
  open_gate(r);
  wait_for_gate(r, a);
  wait_for_gate(r, b);
  const int steps = 2 * r.p.kernels;
  for (int k = 0; k < steps; ++k) {
    const cudaStream_t lane = k % 2 == 0 ? a.get() : b.get();
    if (stream_ordered) {
      const StreamOrderedBuffer scratch(kThreads, lane);
      launch_spin_then_write(lane, r.out.data(), scratch.data(), static_cast<std::uint32_t>(k), r.spin_ns);
    } else {
      const DeviceBuffer<std::uint32_t> scratch(kThreads);  // freed (cudaFree) at the end of the step
      launch_spin_then_write(lane, r.out.data(), scratch.data(), static_cast<std::uint32_t>(k), r.spin_ns);
    }
  }
  std::vector<Event> ends(2);
  ends[0].record(a);
  ends[1].record(b);
  return finish(r, ends, steps, tally);
}

void trace_cases(Rig& r, const RunContext& ctx, Measurements& m, const Stream& ba, const Stream& bb,
                 const Stream& na, const Stream& nb) {
  Tally untimed;  // the timed runs checked the results; these runs are for the picture
  const NamedLane gate{r.gate, "start gate"};
  traced_run(m.timelines, "stream 0 between blocking streams: a staircase",
             {gate, {ba, "stream A"}, {nullptr, "stream 0"}, {bb, "stream B"}},
             [&](TraceSession&) { (void)run_stream0(r, ba, bb, untimed); });
  traced_run(m.timelines, "stream 0 between non-blocking streams: three lanes side by side",
             {gate, {na, "stream A"}, {nullptr, "stream 0"}, {nb, "stream B"}},
             [&](TraceSession&) { (void)run_stream0(r, na, nb, untimed); });
  // traced_run rehearses once, unseen, then records: each pass has new threads, so the threads
  // name their lanes only in the recorded pass (the rehearsal's streams are gone by then).
  auto threads_case = [&](cudaStream_t lane) {
    int pass = 0;
    return [&r, &ctx, &untimed, lane, pass](TraceSession& t) mutable {
      (void)run_threads(r, lane, ctx.device, ++pass == 2 ? &t : nullptr, untimed);
    };
  };
  traced_run(m.timelines, "two host threads on stream 0 (cudaStreamLegacy): one queue", {gate},
             threads_case(cudaStreamLegacy));
  traced_run(m.timelines, "two host threads on their per-thread default streams: side by side", {gate},
             threads_case(cudaStreamPerThread));
  const std::vector<NamedLane> pipeline = {gate, {na, "stream A"}, {nb, "stream B"}};
  traced_run(m.timelines, "cudaMalloc/cudaFree per step: each free waits for the device", pipeline,
             [&](TraceSession&) { (void)run_alloc(r, na, nb, false, untimed); });
  traced_run(m.timelines, "cudaMallocAsync/cudaFreeAsync per step: the overlap stays", pipeline,
             [&](TraceSession&) { (void)run_alloc(r, na, nb, true, untimed); });
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  int pools = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ctx.device));
  if (pools == 0) throw WaivedError("this device has no stream-ordered allocator (cudaMallocAsync)");
  Rig r(p);
  const Stream blocking_a(cudaStreamDefault), blocking_b(cudaStreamDefault);
  const Stream nonblocking_a(cudaStreamNonBlocking), nonblocking_b(cudaStreamNonBlocking);

  Measurements m;
  auto measure_case = [&](Case& c, auto&& run) {
    const Phase phase("case");
    c.total_us = repeat(ctx.reps, [&] { return run(c.results); });
  };
  measure_case(m.alone, [&](Tally& t) { return run_alone(r, t); });
  measure_case(m.stream0_blocking, [&](Tally& t) { return run_stream0(r, blocking_a, blocking_b, t); });
  measure_case(m.stream0_nonblocking, [&](Tally& t) { return run_stream0(r, nonblocking_a, nonblocking_b, t); });
  measure_case(m.threads_legacy, [&](Tally& t) { return run_threads(r, cudaStreamLegacy, ctx.device, nullptr, t); });
  // Twice the runs: this case has a slow mode (report.cpp, runs_side_by_side), and its figure
  // comes from the runs without it.
  Repetitions twice = ctx.reps;
  twice.repeat *= 2;
  m.threads_per_thread.total_us = repeat(twice, [&] {
    return run_threads(r, cudaStreamPerThread, ctx.device, nullptr, m.threads_per_thread.results);
  });
  measure_case(m.per_thread_beside_stream0, [&](Tally& t) { return run_per_thread_beside(r, cudaStreamLegacy, t); });
  measure_case(m.per_thread_beside_blocking, [&](Tally& t) { return run_per_thread_beside(r, blocking_b, t); });
  measure_case(m.alloc_sync, [&](Tally& t) { return run_alloc(r, nonblocking_a, nonblocking_b, false, t); });
  measure_case(m.alloc_async, [&](Tally& t) { return run_alloc(r, nonblocking_a, nonblocking_b, true, t); });

  if (ctx.tracing()) in_phase("trace", [&] { trace_cases(r, ctx, m, blocking_a, blocking_b, nonblocking_a, nonblocking_b); });
  return m;
}

}  // namespace cudalab::default_stream
