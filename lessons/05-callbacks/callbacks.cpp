// Lesson 05: host functions in stream order. cudaLaunchHostFunc runs host code after the work
// before it in the stream; we measure how long after (against a GPU clock calibrated to the
// host's), show that a slow callback holds up its own stream but not others, and compare a
// callback-driven worker pipeline with a cudaStreamSynchronize loop. Callbacks never call CUDA.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "callbacks_kernels.hpp"
#include "callbacks_model.hpp"
#include "callbacks_options.hpp"
#include "common/bench/errors.hpp"
#include "joining_thread.hpp"
#include "common/bench/lesson.hpp"
#include "common/cuda/mapped_memory.hpp"
#include "common/report/text_format.hpp"
#include "common/trace/traced_run.hpp"

namespace cudalab {

namespace {

using namespace callbacks;

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

struct LatencySample {
  double latency_us = 0;
  double clock_uncertainty_us = 0;
  int matching = 0;
};

LatencySample measure_callback_latency(const Stream& stream, const CallbacksOptions& o, std::uint32_t seed,
                                       bool legacy) {
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
  return LatencySample{callback_latency_us(probe.host_start_ns, end_ns[0], clocks),
                       static_cast<double>(clocks.uncertainty_ns) / 1000.0, probe.matching};
}

// --- a slow callback blocks its own stream only ---------------------------------------------

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

struct BlockingSample {
  double gap_ms = 0;          // first kernel's end -> next kernel's start, same stream
  double other_busy_ms = 0;   // how much of that gap the other stream's kernel was running
};

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
  double gpu_ms = 0;   // copy-kernel-copy, summed over batches (sync loop only)
  std::size_t checked = 0;
  std::size_t correct = 0;
};

PipelineRun run_sync_loop(const Stream& s, PipelineBuffers& b, const CallbacksOptions& o) {
  PipelineRun run;
  const auto spin_ns = static_cast<std::uint64_t>(o.batch_us) * 1000;
  const auto start = host_now_ns();
  for (int batch = 0; batch < o.batches; ++batch) {
    auto t0 = host_now_ns();
    prepare_batch(b.host_in[0], batch);
    auto t1 = host_now_ns();
    enqueue_batch(s, b, 0, spin_ns);
    s.synchronize();
    auto t2 = host_now_ns();
    run.correct += check_batch(b.host_out[0], batch);
    run.checked += b.host_out[0].size();
    auto t3 = host_now_ns();
    run.host_ms += static_cast<double>((t1 - t0) + (t3 - t2)) / 1e6;
    run.gpu_ms += static_cast<double>(t2 - t1) / 1e6;
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

PipelineRun run_callback_pipeline(const Stream& s, PipelineBuffers& b, const CallbacksOptions& o) {
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
  const auto start = host_now_ns();
  {
    JoiningThread worker([&] {
      try {
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

std::vector<double> pick(const std::vector<LatencySample>& v, double LatencySample::*field) {
  std::vector<double> out;
  for (const auto& s : v) out.push_back(s.*field);
  return out;
}

class Callbacks final : public Lesson {
 public:
  void add_options(CLI::App& app) override { add_callbacks_options(app, options_); }
  Repetitions default_repetitions() const override { return {3, 50}; }

  Report run(const RunContext& ctx) override {
    const CallbacksOptions& o = options_;
    const Stream stream;
    const Stream other;

    // 1. latency and ordering, cudaLaunchHostFunc; the legacy API once for contrast.
    std::vector<LatencySample> samples;
    std::uint32_t seed = 1;
    repeat(ctx.reps, [&] {
      samples.push_back(measure_callback_latency(stream, o, seed++ * 0x9e3779b9u, false));
      return samples.back().latency_us;
    });
    samples.erase(samples.begin(), samples.begin() + ctx.reps.warmup);
    const LatencySample legacy = measure_callback_latency(stream, o, seed++ * 0x9e3779b9u, true);
    std::size_t ordered_ok = 0, ordered_checked = 0;
    for (const auto& s : samples) {
      ordered_ok += static_cast<std::size_t>(s.matching);
      ordered_checked += static_cast<std::size_t>(o.elements);
    }
    ordered_ok += static_cast<std::size_t>(legacy.matching);
    ordered_checked += static_cast<std::size_t>(o.elements);

    // 2. a sleeping callback blocks its stream, not the other one.
    const Repetitions long_reps{std::min(ctx.reps.warmup, 1), std::min(ctx.reps.repeat, kLongRunSamples)};
    std::vector<double> gap_ms, other_busy_ms;
    repeat(long_reps, [&] {
      const BlockingSample s = measure_blocking(stream, other, o.callback_ms);
      gap_ms.push_back(s.gap_ms);
      other_busy_ms.push_back(s.other_busy_ms);
      return s.gap_ms;
    });
    gap_ms.erase(gap_ms.begin(), gap_ms.begin() + long_reps.warmup);
    other_busy_ms.erase(other_busy_ms.begin(), other_busy_ms.begin() + long_reps.warmup);

    // 3. synchronize loop vs callback-driven worker.
    PipelineBuffers buffers(static_cast<std::size_t>(o.batch_elements));
    for (int slot = 0; slot < 2; ++slot) std::memset(buffers.host_out[slot].data(), 0xFF, buffers.host_out[slot].bytes());
    std::vector<double> sync_ms, worker_ms, host_per_batch, gpu_per_batch;
    std::size_t batch_ok = 0, batch_checked = 0;
    // Sync loop and worker pipeline alternate within each sample, so a slow moment of the host
    // hits both; 15 pairs keep the median steady (5 flipped the verdict once on the lab H100).
    const Repetitions pipeline_reps{long_reps.warmup, std::min(ctx.reps.repeat, kPipelineSamples)};
    repeat(pipeline_reps, [&] {
      const PipelineRun sync = run_sync_loop(stream, buffers, o);
      sync_ms.push_back(sync.total_ms);
      host_per_batch.push_back(sync.host_ms / o.batches);
      gpu_per_batch.push_back(sync.gpu_ms / o.batches);
      const PipelineRun worker = run_callback_pipeline(stream, buffers, o);
      worker_ms.push_back(worker.total_ms);
      batch_ok += sync.correct + worker.correct;
      batch_checked += sync.checked + worker.checked;
      return sync.total_ms;
    });
    for (auto* v : {&sync_ms, &worker_ms, &host_per_batch, &gpu_per_batch}) {
      v->erase(v->begin(), v->begin() + long_reps.warmup);
    }

    Report r = build_report(o, samples, legacy, ordered_ok, ordered_checked, gap_ms, other_busy_ms, sync_ms,
                            worker_ms, host_per_batch, gpu_per_batch, batch_ok, batch_checked);
    if (ctx.tracing()) {
      traced_run(r.timelines,
                 fmt::format("kernel, a callback sleeping {} ms, kernel; another stream runs on", o.callback_ms),
                 {{stream, "callback stream"}, {other, "other stream"}, {nullptr, "stamps read back"}},
                 [&](TraceSession& trace) { (void)measure_blocking(stream, other, o.callback_ms, &trace); });
    }
    return r;
  }

 private:
  Report build_report(const CallbacksOptions& o, const std::vector<LatencySample>& samples,
                      const LatencySample& legacy, std::size_t ordered_ok, std::size_t ordered_checked,
                      const std::vector<double>& gap_ms, const std::vector<double>& other_busy_ms,
                      const std::vector<double>& sync_ms, const std::vector<double>& worker_ms,
                      const std::vector<double>& host_per_batch, const std::vector<double>& gpu_per_batch,
                      std::size_t batch_ok, std::size_t batch_checked) const {
    Report r;
    r.params = {
        {"callback-ms", std::to_string(o.callback_ms), true},
        {"elements", std::to_string(o.elements), true},
        {"batches", std::to_string(o.batches), true},
        {"batch-us", std::to_string(o.batch_us), true},
        {"batch-elements", std::to_string(o.batch_elements), true},
    };

    const std::vector<double> latency = pick(samples, &LatencySample::latency_us);
    const Summary latency_summary = summarize(latency);
    Section lat;
    lat.key = "latency";
    lat.title = "callback latency: GPU work done -> host function running";
    lat.notes_key = "latency";
    Metric m{"callback.latency", "cudaLaunchHostFunc", "us", latency, {},
             fmt::format("p99 {:.1f} us", latency_summary.p99)};
    lat.metrics.push_back(m);
    lat.metrics.push_back(Metric{"callback.latency_p99", "cudaLaunchHostFunc, p99", "us", {latency_summary.p99}, {}, ""});
    lat.metrics.push_back(single_value("callback.legacy_latency", "cudaStreamAddCallback (legacy, once)", "us",
                                       legacy.latency_us, "holds a lock while it runs"));
    lat.metrics.push_back(Metric{"clock.uncertainty", "clock calibration uncertainty", "us",
                                 pick(samples, &LatencySample::clock_uncertainty_us), {},
                                 "half the tightest host<->GPU round trip"});
    r.sections.push_back(std::move(lat));

    const double gap_predicted = predict_blocked_gap_ms(o.callback_ms, latency_summary.median);
    Section blk;
    blk.key = "blocking";
    blk.title = fmt::format("a callback that sleeps {} ms", o.callback_ms);
    blk.notes_key = "blocking";
    blk.metrics.push_back(Metric{"blocking.gap", "same stream: gap before the next kernel", "ms", gap_ms, gap_predicted,
                                 "the stream waits for the callback to return"});
    blk.metrics.push_back(Metric{"blocking.other_stream", "other stream: kernel running during that gap", "ms",
                                 other_busy_ms, {}, "other streams carry on"});
    r.sections.push_back(std::move(blk));

    const double host_ms = summarize(host_per_batch).median;
    const double gpu_ms = summarize(gpu_per_batch).median;
    const double sync_median = summarize(sync_ms).median;
    const double worker_median = summarize(worker_ms).median;
    Section pipe;
    pipe.key = "pipeline";
    pipe.title = fmt::format("{} batches: synchronize loop vs callback + worker thread", o.batches);
    pipe.notes_key = "worker";
    pipe.metrics.push_back(Metric{"pipeline.sync_loop", "cudaStreamSynchronize loop", "ms", sync_ms, {},
                                  fmt::format("host {:.3f} + GPU {:.3f} ms per batch", host_ms, gpu_ms)});
    pipe.metrics.push_back(Metric{"pipeline.worker", "callback signals a worker thread", "ms", worker_ms, {},
                                  "two batches in flight"});
    std::vector<double> speedups;
    for (std::size_t i = 0; i < std::min(sync_ms.size(), worker_ms.size()); ++i) speedups.push_back(sync_ms[i] / worker_ms[i]);
    pipe.metrics.push_back(Metric{"pipeline.speedup", "speed-up of the worker pipeline", "x", speedups,
                                  predict_pipeline_speedup(host_ms, gpu_ms), "(host + GPU) / max(host, GPU)"});
    r.sections.push_back(std::move(pipe));

    Section rules;
    rules.key = "rules";
    rules.title = "what a callback may not do";
    rules.notes_key = "rules";
    r.sections.push_back(std::move(rules));

    r.checks.push_back(verify_check(
        "callback_sees_kernel_results", ordered_checked > 0 && ordered_ok == ordered_checked,
        fmt::format("every callback saw the preceding kernel's results ({} of {} elements)", format_count(ordered_ok),
                    format_count(ordered_checked)),
        "a missing element would mean the host function ran before the kernel finished"));
    r.checks.push_back(verify_check(
        "pipeline_results", batch_checked > 0 && batch_ok == batch_checked,
        fmt::format("every pipeline batch matches the CPU ({} of {} elements)", format_count(batch_ok),
                    format_count(batch_checked))));
    r.checks.push_back(expect_check(
        "latency_tens_of_us", latency_summary.median < 100.0,
        "callback latency is tens of microseconds at most (median under 100 us)",
        "a busy or power-saving host CPU, or many threads competing for it, delays the callback thread"));
    const double min_gap = summarize(gap_ms).min;
    r.checks.push_back(expect_check(
        "callback_blocks_its_stream", min_gap >= o.callback_ms,
        fmt::format("the next kernel in the stream waited for the {} ms callback", o.callback_ms),
        "this cannot fail unless stream order is broken"));
    const double busy = summarize(other_busy_ms).median;
    r.checks.push_back(expect_check(
        "other_stream_runs_on", o.callback_ms == 0 || busy >= 0.5 * o.callback_ms,
        "the other stream's kernel kept running while the callback slept",
        "with CUDA_LAUNCH_BLOCKING=1 or a GPU that cannot run kernels concurrently, streams take turns"));
    r.checks.push_back(expect_check(
        "worker_pipeline_faster", worker_median < sync_median,
        "the callback + worker pipeline beats the synchronize loop",
        "when host work or GPU work per batch is tiny there is little to overlap"));

    r.headline = fmt::format("callback latency {:.1f} us median, p99 {:.1f} us; pipeline {:.2f}x",
                             latency_summary.median, latency_summary.p99, sync_median / worker_median);
    r.try_next = {
        {"cudalab callbacks --callback-ms 50", "a slower callback: the gap follows it, the other stream does not care"},
        {"cudalab callbacks --callback-ms 0", "the bare cost of a host function in the stream"},
        {"cudalab callbacks --batch-us 2000", "GPU-heavy batches: what bounds the pipeline now?"},
        {"cudalab callbacks --batch-elements 4194304", "host-heavy batches"},
        {"cudalab callbacks --repeat 500", "a steadier p99"},
    };
    return r;
  }

  CallbacksOptions options_;
};

}  // namespace

std::unique_ptr<Lesson> make_callbacks() { return std::make_unique<Callbacks>(); }

}  // namespace cudalab
