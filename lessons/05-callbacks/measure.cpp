// Lesson 05's experiments: cudaLaunchHostFunc runs host code after the work before it in the
// stream. We measure how long after (against a GPU clock calibrated to the host's), show what a
// slow host function holds up (its own stream, and every other host function) and what it does
// not (kernels and copies in other streams), and compare a callback-driven worker pipeline with
// a cudaStreamSynchronize loop. Callbacks never call CUDA.
#include "measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/event_time.hpp"
#include "common/gpu/mapped_memory.hpp"
#include "common/gpu/traced_run.hpp"
#include "joining_thread.hpp"
#include "kernels.hpp"
#include "model.hpp"

namespace cudalab::callbacks {

namespace {

constexpr int kClockProbes = 8;
constexpr std::uint64_t kEchoTimeoutNs = 2'000'000'000;  // the echo kernel gives up after 2 s
constexpr auto kHostTimeout = std::chrono::seconds(10);
// The blocking demo and the pipelines sleep or run long; a few samples show the effect.
constexpr int kLongRunSamples = 5;
constexpr int kPipelineSamples = 15;

std::int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Keeps a stream's pending callbacks from outliving the data they point to: whatever way the
// scope is left, the stream is drained first.
class DrainOnExit {
 public:
  explicit DrainOnExit(cudaStream_t stream) : stream_(stream) {}
  DrainOnExit(const DrainOnExit&) = delete;
  DrainOnExit& operator=(const DrainOnExit&) = delete;
  ~DrainOnExit() { CUDALAB_CUDA_CHECK_NOEXCEPT(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_;
};

// --- the host clock against %globaltimer --------------------------------------------------

ClockCalibration calibrate_clocks(const Stream& stream) {
  PinnedBuffer<std::uint32_t> request(1), reply(1);
  PinnedBuffer<std::int64_t> gpu_ns(kClockProbes);
  auto* req = static_cast<volatile std::uint32_t*>(request.data());
  auto* rep = static_cast<volatile std::uint32_t*>(reply.data());
  *req = 0;
  *rep = 0;
  DrainOnExit drain(stream);
  launch_clock_echo(stream, device_view(request), device_view(reply), device_view(gpu_ns), kClockProbes,
                    kEchoTimeoutNs);
  std::vector<ClockProbe> probes(kClockProbes);
  for (int r = 1; r <= kClockProbes; ++r) {
    const auto deadline = std::chrono::steady_clock::now() + kHostTimeout;
    probes[r - 1].host_send_ns = host_now_ns();
    *req = static_cast<std::uint32_t>(r);
    while (*rep != static_cast<std::uint32_t>(r)) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw RuntimeError("clock calibration: the GPU did not answer (is CUDA_LAUNCH_BLOCKING set?)");
      }
    }
    probes[r - 1].host_receive_ns = host_now_ns();
  }
  stream.synchronize();
  for (int r = 0; r < kClockProbes; ++r) probes[r].gpu_ns = gpu_ns[r];
  return calibrate(probes);
}

// --- callback latency and ordering ---------------------------------------------------------

struct OrderingProbe {
  const std::uint32_t* out = nullptr;  // host view of the mapped buffer the kernel wrote
  int count = 0;
  std::uint32_t seed = 0;
  std::int64_t host_start_ns = 0;  // first thing the callback does
  int matching = 0;                // elements the callback saw already written
};

// Runs on CUDA's callback thread. Reads host memory only: no CUDA calls are allowed here.
void read_clock_then_check(OrderingProbe& p) {
  p.host_start_ns = host_now_ns();
  int matching = 0;
  for (int i = 0; i < p.count; ++i) matching += p.out[i] == ordered_value(static_cast<std::uint32_t>(i), p.seed);
  p.matching = matching;
}
void CUDART_CB on_fill_done(void* data) { read_clock_then_check(*static_cast<OrderingProbe*>(data)); }
void CUDART_CB on_fill_done_legacy(cudaStream_t, cudaError_t, void* data) {
  read_clock_then_check(*static_cast<OrderingProbe*>(data));
}

LatencySample measure_callback_latency(const Stream& stream, const Params& o, std::uint32_t seed, bool legacy,
                                       Tally& ordering) {
  PinnedBuffer<std::uint32_t> out(static_cast<std::size_t>(o.elements));
  PinnedBuffer<std::int64_t> end_ns(1);
  std::memset(out.data(), 0xFF, out.bytes());  // poison: an unwritten element cannot match
  const ClockCalibration clocks = calibrate_clocks(stream);
  OrderingProbe probe{out.data(), o.elements, seed};
  {
    DrainOnExit drain(stream);
    launch_stamped_fill(stream, device_view(out), o.elements, seed, device_view(end_ns));
    if (legacy) {
      CUDALAB_CUDA_CHECK(cudaStreamAddCallback(stream, on_fill_done_legacy, &probe, 0));
    } else {
      CUDALAB_CUDA_CHECK(cudaLaunchHostFunc(stream, on_fill_done, &probe));
    }
  }
  ordering.add(static_cast<std::size_t>(probe.matching), static_cast<std::size_t>(o.elements));
  return LatencySample{callback_latency_us(probe.host_start_ns, end_ns[0], clocks),
                       static_cast<double>(clocks.uncertainty_ns) / 1000.0};
}

// --- a slow callback blocks its own stream, and not the GPU ---------------------------------------------

struct SleepingCallback {
  int sleep_ms = 0;
  // Only in the traced run: CUPTI's clock around the sleep, so the timeline can draw the
  // callback (CUPTI records no activity for host functions). Reading a clock is no CUDA call.
  bool stamp = false;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};
void CUDART_CB sleep_in_callback(void* data) {
  auto* sleeper = static_cast<SleepingCallback*>(data);
  if (sleeper->stamp) sleeper->start_ns = TraceSession::now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(sleeper->sleep_ms));
  if (sleeper->stamp) sleeper->end_ns = TraceSession::now_ns();
}

// With `trace`, the callback also stamps itself and is reported to the session as a host op.
BlockingSample measure_blocking(const Stream& blocked, const Stream& other, int callback_ms,
                                TraceSession* trace = nullptr) {
  constexpr std::uint64_t kShortKernelNs = 50'000;
  DeviceBuffer<std::int64_t> stamps(6);
  SleepingCallback sleeper{callback_ms, trace != nullptr};
  {
    DrainOnExit drain_blocked(blocked);
    DrainOnExit drain_other(other);
    launch_timed_spin(blocked, kShortKernelNs, stamps.data() + 0, stamps.data() + 1);
    CUDALAB_CUDA_CHECK(cudaLaunchHostFunc(blocked, sleep_in_callback, &sleeper));
    launch_timed_spin(blocked, kShortKernelNs, stamps.data() + 2, stamps.data() + 3);
    launch_timed_spin(other, static_cast<std::uint64_t>(callback_ms) * 1'000'000, stamps.data() + 4,
                      stamps.data() + 5);
  }
  // Both streams are drained: the callback has run and its stamps are final.
  if (trace != nullptr) {
    trace->add_host_op(blocked, fmt::format("callback: sleep {} ms", callback_ms), sleeper.start_ns, sleeper.end_ns);
  }
  std::int64_t t[6];
  CUDALAB_CUDA_CHECK(cudaMemcpy(t, stamps.data(), stamps.bytes(), cudaMemcpyDeviceToHost));
  return BlockingSample{static_cast<double>(t[2] - t[1]) / 1e6, static_cast<double>(overlap_ns(t[1], t[2], t[4], t[5])) / 1e6};
}

// --- a slow host function delays the host functions of other streams -------------------------

// Runs on CUDA's callback thread: stamps the host clock around its sleep.
struct StampedSleeper {
  int sleep_ms = 0;
  std::atomic<bool> started{false};
  std::atomic<std::int64_t> end_ns{0};
};
void CUDART_CB sleep_and_stamp(void* data) {
  auto* sleeper = static_cast<StampedSleeper*>(data);
  sleeper->started.store(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(sleeper->sleep_ms));
  sleeper->end_ns.store(host_now_ns());
}
void CUDART_CB stamp_start(void* data) { static_cast<std::atomic<std::int64_t>*>(data)->store(host_now_ns()); }

void wait_until_started(const StampedSleeper& sleeper) {
  const auto deadline = std::chrono::steady_clock::now() + kHostTimeout;
  while (!sleeper.started.load()) {
    if (std::chrono::steady_clock::now() > deadline) throw RuntimeError("the sleeping host function did not start");
  }
}

struct CrossStreamBuffers {
  DeviceBuffer<std::uint32_t> device;
  DeviceBuffer<std::int64_t> end_ns{1};  // the fill kernel's stamp, unused here
  PinnedBuffer<std::uint32_t> host;
  explicit CrossStreamBuffers(std::size_t n) : device(n), host(n) {}
};

// Stream A: a host function sleeping `sleep_ms`. Once it runs, stream B (idle) gets a kernel,
// a copy of its output to the host and a host function, in that order.
CrossStreamSample measure_cross_stream(const Stream& a, const Stream& b, int sleep_ms, CrossStreamBuffers& buf,
                                       std::uint32_t seed, Tally& results) {
  std::memset(buf.host.data(), 0xFF, buf.host.bytes());  // poison: an unwritten element cannot match
  StampedSleeper sleeper;
  sleeper.sleep_ms = sleep_ms;
  std::atomic<std::int64_t> b_start_ns{0};
  Event enqueued, kernel_done, copy_done;
  std::int64_t enqueue_ns = 0;
  {
    DrainOnExit drain_a(a);
    DrainOnExit drain_b(b);
    CUDALAB_CUDA_CHECK(cudaLaunchHostFunc(a, sleep_and_stamp, &sleeper));
    wait_until_started(sleeper);
    enqueue_ns = host_now_ns();
    enqueued.record(b);
    launch_stamped_fill(b, buf.device.data(), static_cast<int>(buf.device.size()), seed, buf.end_ns.data());
    kernel_done.record(b);
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(buf.host.data(), buf.device.data(), buf.device.bytes(),
                                       cudaMemcpyDeviceToHost, b));
    copy_done.record(b);
    CUDALAB_CUDA_CHECK(cudaLaunchHostFunc(b, stamp_start, &b_start_ns));
  }
  std::size_t correct = 0;
  for (std::size_t i = 0; i < buf.host.size(); ++i) {
    correct += buf.host[i] == ordered_value(static_cast<std::uint32_t>(i), seed) ? 1 : 0;
  }
  results.add(correct, buf.host.size());
  return CrossStreamSample{static_cast<double>(sleeper.end_ns.load() - enqueue_ns) / 1e6,
                           static_cast<double>(b_start_ns.load() - enqueue_ns) / 1e6,
                           elapsed_us(enqueued, kernel_done), elapsed_us(enqueued, copy_done)};
}

// --- pipeline: synchronize loop vs callback + worker thread ----------------------------------

struct PipelineBuffers {
  PinnedBuffer<std::uint32_t> host_in[2];
  PinnedBuffer<std::uint32_t> host_out[2];
  DeviceBuffer<std::uint32_t> dev_in[2];
  DeviceBuffer<std::uint32_t> dev_out[2];
  explicit PipelineBuffers(std::size_t n)
      : host_in{PinnedBuffer<std::uint32_t>(n), PinnedBuffer<std::uint32_t>(n)},
        host_out{PinnedBuffer<std::uint32_t>(n), PinnedBuffer<std::uint32_t>(n)},
        dev_in{DeviceBuffer<std::uint32_t>(n), DeviceBuffer<std::uint32_t>(n)},
        dev_out{DeviceBuffer<std::uint32_t>(n), DeviceBuffer<std::uint32_t>(n)} {}
};

std::uint32_t batch_input(std::uint32_t i, int batch) { return i * 2246822519u + static_cast<std::uint32_t>(batch); }

// Host work per batch: prepare the input, then (after the GPU) check every output element.
void prepare_batch(const PinnedBuffer<std::uint32_t>& in, int batch) {
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = batch_input(static_cast<std::uint32_t>(i), batch);
}
std::size_t check_batch(const PinnedBuffer<std::uint32_t>& out, int batch) {
  std::size_t correct = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    correct += out[i] == batch_transform(batch_input(static_cast<std::uint32_t>(i), batch));
  }
  std::memset(out.data(), 0xFF, out.bytes());  // poison for the slot's next batch
  return correct;
}

void enqueue_batch(const Stream& s, PipelineBuffers& b, int slot, std::uint64_t spin_ns) {
  const auto n = b.dev_in[slot].size();
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(b.dev_in[slot].data(), b.host_in[slot].data(), b.dev_in[slot].bytes(),
                                     cudaMemcpyHostToDevice, s));
  launch_batch(s, b.dev_in[slot].data(), b.dev_out[slot].data(), static_cast<int>(n), spin_ns);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(b.host_out[slot].data(), b.dev_out[slot].data(), b.dev_out[slot].bytes(),
                                     cudaMemcpyDeviceToHost, s));
}

struct PipelineRun {
  double total_ms = 0;
  double host_ms = 0;  // prepare + check, summed over batches (sync loop only)
  // copy-kernel-copy on the GPU's own clock (events), summed over batches (sync loop only): how
  // soon the host wakes after the work is not in it, so the host's load cannot swing it
  double gpu_ms = 0;
  std::size_t checked = 0;
  std::size_t correct = 0;
};

PipelineRun run_sync_loop(const Stream& s, PipelineBuffers& b, const Params& o) {
  PipelineRun run;
  const auto spin_ns = static_cast<std::uint64_t>(o.batch_us) * 1000;
  const auto start = host_now_ns();
  for (int batch = 0; batch < o.batches; ++batch) {
    auto t0 = host_now_ns();
    prepare_batch(b.host_in[0], batch);
    auto t1 = host_now_ns();
    EventTimer gpu;
    gpu.start(s);
    enqueue_batch(s, b, 0, spin_ns);
    gpu.stop(s);
    s.synchronize();
    auto t2 = host_now_ns();
    run.correct += check_batch(b.host_out[0], batch);
    run.checked += b.host_out[0].size();
    auto t3 = host_now_ns();
    run.host_ms += static_cast<double>((t1 - t0) + (t3 - t2)) / 1e6;
    run.gpu_ms += static_cast<double>(gpu.elapsed_ms());
  }
  run.total_ms = static_cast<double>(host_now_ns() - start) / 1e6;
  return run;
}

// The callback only hands the finished batch number to the worker; the worker does the CUDA
// calls and the host work, with the next batch already running on the GPU.
struct FinishedBatches {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<int> finished;
};
struct BatchTicket {
  FinishedBatches* queue = nullptr;
  int batch = 0;
};
void CUDART_CB signal_worker(void* data) {
  auto* ticket = static_cast<BatchTicket*>(data);
  {
    std::lock_guard<std::mutex> lock(ticket->queue->mutex);
    ticket->queue->finished.push_back(ticket->batch);
  }
  ticket->queue->ready.notify_one();
}

PipelineRun run_callback_pipeline(const Stream& s, PipelineBuffers& b, const Params& o) {
  PipelineRun run;
  const auto spin_ns = static_cast<std::uint64_t>(o.batch_us) * 1000;
  FinishedBatches queue;
  std::vector<BatchTicket> tickets(static_cast<std::size_t>(o.batches));
  for (int i = 0; i < o.batches; ++i) tickets[i] = BatchTicket{&queue, i};
  std::exception_ptr worker_error;
  DrainOnExit drain(s);  // declared after queue and tickets: drained before they go

  auto launch = [&](int batch) {
    prepare_batch(b.host_in[batch % 2], batch);
    enqueue_batch(s, b, batch % 2, spin_ns);
    CUDALAB_CUDA_CHECK(cudaLaunchHostFunc(s, signal_worker, &tickets[batch]));
  };
  // A new thread's current device is device 0: the worker takes the run's device first, or its
  // first call would open a context on GPU 0 beside another student measuring there.
  int device = 0;
  CUDALAB_CUDA_CHECK(cudaGetDevice(&device));
  const auto start = host_now_ns();
  {
    JoiningThread worker([&] {
      try {
        CUDALAB_CUDA_CHECK(cudaSetDevice(device));
        launch(0);
        if (o.batches > 1) launch(1);
        for (int done = 0; done < o.batches; ++done) {
          int batch = 0;
          {
            std::unique_lock<std::mutex> lock(queue.mutex);
            if (!queue.ready.wait_for(lock, kHostTimeout, [&] { return !queue.finished.empty(); })) {
              throw RuntimeError("pipeline: no batch finished within 10 s");
            }
            batch = queue.finished.front();
            queue.finished.pop_front();
          }
          run.correct += check_batch(b.host_out[batch % 2], batch);
          run.checked += b.host_out[batch % 2].size();
          if (batch + 2 < o.batches) launch(batch + 2);
        }
      } catch (...) {
        worker_error = std::current_exception();
      }
    });
  }
  run.total_ms = static_cast<double>(host_now_ns() - start) / 1e6;
  if (worker_error) std::rethrow_exception(worker_error);
  return run;
}

// --- the lesson ------------------------------------------------------------------------------

constexpr std::uint32_t kSeedStep = 0x9e3779b9u;  // a fresh seed per run: a stale buffer cannot pass

void measure_latency(const Params& p, const RunContext& ctx, const Stream& stream, Measurements& m) {
  std::uint32_t seed = 1;
  m.latency = repeat(ctx.reps, [&] { return measure_callback_latency(stream, p, seed++ * kSeedStep, false, m.ordering); });
  m.legacy = measure_callback_latency(stream, p, seed++ * kSeedStep, true, m.ordering);
}

// `many_reps` for the runs beside a sleeping host function: B's kernel + copy can land in a slow
// mode (the lab H100 showed 2 of 5 samples at 8x the median), so they take more samples.
void measure_cross_streams(const Params& p, const Repetitions& reps, const Repetitions& many_reps, const Stream& a,
                           const Stream& b, Measurements& m) {
  CrossStreamBuffers buffers(static_cast<std::size_t>(p.elements));
  std::uint32_t seed = 7;
  auto run = [&](int sleep_ms, const Repetitions& r) {
    return repeat(r, [&] { return measure_cross_stream(a, b, sleep_ms, buffers, seed++ * kSeedStep, m.cross_results); });
  };
  m.cross_alone = run(0, reps);
  m.cross = run(p.callback_ms, many_reps);
}

void measure_pipelines(const Params& p, const Repetitions& reps, const Stream& stream, Measurements& m) {
  PipelineBuffers buffers(static_cast<std::size_t>(p.batch_elements));
  for (auto& out : buffers.host_out) std::memset(out.data(), 0xFF, out.bytes());
  // Sync loop and worker pipeline alternate within each sample, so a slow moment of the host
  // hits both; 15 pairs keep the median steady (5 flipped the verdict once on the lab H100).
  m.pipeline = repeat(reps, [&] {
    const PipelineRun sync = run_sync_loop(stream, buffers, p);
    const PipelineRun worker = run_callback_pipeline(stream, buffers, p);
    m.batches.add(sync.correct + worker.correct, sync.checked + worker.checked);
    return PipelineSample{sync.total_ms, worker.total_ms, sync.host_ms / p.batches, sync.gpu_ms / p.batches};
  });
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m;
  const Stream stream;
  const Stream other;

  in_phase("latency", [&] { measure_latency(p, ctx, stream, m); });
  // The blocking demos sleep and the pipelines run long; a few samples show the effect.
  const Repetitions long_reps{std::min(ctx.reps.warmup, 1), std::min(ctx.reps.repeat, kLongRunSamples)};
  m.blocking = in_phase("blocking", [&] { return repeat(long_reps, [&] { return measure_blocking(stream, other, p.callback_ms); }); });
  const Repetitions many_reps{long_reps.warmup, std::min(ctx.reps.repeat, kPipelineSamples)};
  in_phase("cross streams", [&] { measure_cross_streams(p, long_reps, many_reps, stream, other, m); });
  in_phase("pipelines", [&] { measure_pipelines(p, many_reps, stream, m); });

  if (ctx.tracing()) {
    const Phase phase("trace");
    traced_run(m.timelines,
               msg("kernel, a callback sleeping {ms} ms, kernel; another stream runs on", arg("ms", p.callback_ms)),
               {{stream, "callback stream"}, {other, "other stream"}, {nullptr, "stamps read back"}},
               [&](TraceSession& trace) { (void)measure_blocking(stream, other, p.callback_ms, &trace); });
  }
  return m;
}

}  // namespace cudalab::callbacks
