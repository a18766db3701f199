// Lesson 11's experiment: one workload (a kernel reads an input buffer and writes an output) run
// four ways: explicit pinned copies pipelined over streams; managed memory that the kernel faults
// in page by page; managed memory prefetched in the same pipeline; and zero-copy, the kernel
// reading and writing mapped host memory itself. Then zero-copy against copying first, as each
// element is read more often (measure_access.cpp), and the sparse read of a large buffer.
#include "measure.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/event_time.hpp"
#include "common/gpu/timing.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "rig.hpp"

namespace cudalab::unified_memory {

namespace {

// Every on-demand run faults the whole buffer over and back, tens of milliseconds at the
// defaults: they take half the repeats (at least three), so the turn stays short.
Repetitions fault_reps(const Repetitions& reps) {
  Repetitions out = reps;
  out.warmup = std::min(reps.warmup, 1);
  out.repeat = std::max(3, reps.repeat / 2);
  out.adaptive = false;
  return out;
}

// Refuses, with the lesson's reason, a device or system without what the four ways need.
void require_support(int device, Measurements& m) {
  auto attribute = [&](cudaDeviceAttr a) {
    int value = 0;
    CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, a, device));
    return value;
  };
  if (attribute(cudaDevAttrManagedMemory) == 0) throw WaivedError("this device has no managed memory");
  if (attribute(cudaDevAttrConcurrentManagedAccess) == 0) {
    // Without it (Windows, WSL, some embedded systems) a kernel launch moves every managed page
    // at once: there are no faults to see and cudaMemPrefetchAsync cannot target the device.
    throw WaivedError("this system migrates managed memory only at kernel launch (concurrentManagedAccess is 0)");
  }
  if (attribute(cudaDevAttrCanMapHostMemory) == 0) throw WaivedError("this device cannot map host memory");
  m.pageable_memory_access = attribute(cudaDevAttrPageableMemoryAccess) != 0;
  m.copy_engines = query_device(device).async_engine_count;
}

// Times one run on `stream` with events, and the host's enqueue with its own clock.
EnqueuedSample time_enqueued(const Stream& stream, const std::function<void(cudaStream_t)>& enqueue) {
  EventTimer timer;
  timer.start(stream);
  const auto start = std::chrono::steady_clock::now();
  enqueue(stream);
  const double enqueue_ms = host_ms_since(start);
  timer.stop(stream);
  return EnqueuedSample{static_cast<double>(timer.elapsed_ms()), enqueue_ms};
}

// One chunk's stages alone: the copy engines' bandwidths and the kernel, the model's inputs.
void measure_stages(Rig& r, Measurements& m, const RunContext& ctx) {
  const WordRange& c = r.largest_chunk();
  const std::size_t bytes = c.count() * sizeof(Word);
  m.h2d_chunk_ms = time_on_stream(
      r.origin, ctx.reps,
      [&](cudaStream_t s) {
        CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.device_in.data(), r.host_in.data(), bytes, cudaMemcpyHostToDevice, s));
      },
      Launch::behind_latch);
  m.d2h_chunk_ms = time_on_stream(
      r.origin, ctx.reps,
      [&](cudaStream_t s) {
        CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.host_out.data(), r.device_out.data(), bytes, cudaMemcpyDeviceToHost, s));
      },
      Launch::behind_latch);
  m.kernel_chunk_ms = time_on_stream(r.origin, ctx.reps, [&](cudaStream_t s) {
    launch_reuse(r.device_in.data(), r.device_out.data(), r.words, c.begin, c.end, 1, s);
  });
}

void measure_explicit(Rig& r, Measurements& m, const RunContext& ctx) {
  m.explicit_runs =
      repeat(ctx.reps, [&] { return time_enqueued(r.origin, [&](cudaStream_t s) { enqueue_explicit(r, s); }); });
  poison_host(r.host_out.data(), r.expected);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(r.device_out.data(), 0xFF, r.bytes(), r.origin));
  enqueue_explicit(r, r.origin);
  r.origin.synchronize();
  m.explicit_words.add(count_matches(r.host_out.data(), r.expected));
}

void measure_on_demand(Rig& r, Measurements& m, const RunContext& ctx) {
  const Repetitions reps = fault_reps(ctx.reps);
  // The fault cost is fitted to a quarter and a half of the buffer, then predicts the whole.
  for (const std::size_t divisor : {4u, 2u}) {
    FaultProbe probe;
    const std::size_t words = r.words / divisor / r.page_words * r.page_words;
    probe.bytes = words * sizeof(Word);
    probe.pages = words / r.page_words;
    probe.samples = repeat(reps, [&] {
      place_for_on_demand(r, words);
      return run_on_demand(r, words);
    });
    m.probes.push_back(std::move(probe));
  }
  m.on_demand = repeat(reps, [&] {
    place_for_on_demand(r, r.words);
    return run_on_demand(r, r.words);
  });
  place_for_on_demand(r, r.words);  // the output is poisoned on the device: an unwritten word fails
  (void)run_on_demand(r, r.words);
  m.on_demand_words.add(count_matches(r.managed_out.data(), r.expected));
}

void measure_prefetched(Rig& r, Measurements& m, const RunContext& ctx) {
  m.prefetched = repeat(ctx.reps, [&] {
    place_for_on_demand(r, r.words);
    return time_enqueued(r.origin, [&](cudaStream_t s) { enqueue_prefetched(r, s); });
  });
  place_for_on_demand(r, r.words);
  enqueue_prefetched(r, r.origin);
  r.origin.synchronize();
  m.prefetched_words.add(count_matches(r.managed_out.data(), r.expected));
}

// Each way once more, untimed, for its picture; the managed ways with CUPTI's unified-memory
// counters where this system has them.
void trace_ways(Rig& r, Measurements& m) {
  std::vector<NamedLane> lanes;
  for (int w = 0; w < r.workers.count(); ++w) lanes.push_back({r.workers.worker(w), msg("stream {id}", arg("id", w))});
  const auto chunks = arg("chunks", r.chunks.size());
  const auto streams = arg("streams", r.workers.count());
  traced_run(m.timelines, msg("explicit copies: {chunks} chunks over {streams} streams", chunks, streams), lanes,
             [&](TraceSession&) { enqueue_explicit(r, r.origin); });
  place_for_on_demand(r, r.words);
  bool traced = false;
  const auto on_demand = traced_run(m.timelines, "on demand: the kernel faults the input in, the host the output back",
                                    {{r.origin, "kernel"}}, [&](TraceSession& trace) {
                                      traced = trace.record_unified_memory();
                                      (void)run_on_demand(r, r.words);
                                    });
  if (on_demand) m.on_demand_timeline = static_cast<int>(m.timelines.size()) - 1;
  m.faults_traced = on_demand.has_value() && traced;
  place_for_on_demand(r, r.words);
  const auto prefetched = traced_run(m.timelines, msg("prefetched: {chunks} chunks over {streams} streams", chunks, streams),
                                     lanes, [&](TraceSession& trace) {
    if (traced) (void)trace.record_unified_memory();
    enqueue_prefetched(r, r.origin);
  });
  if (prefetched) m.prefetched_timeline = static_cast<int>(m.timelines.size()) - 1;
  traced_run(m.timelines, "zero-copy: one kernel reads and writes host memory over the bus", {{r.origin, "kernel"}},
             [&](TraceSession&) {
               launch_reuse(r.host_in.device_data(), r.host_out.device_data(), r.words, 0, r.words, 1, r.origin);
             });
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  if (p.size % kSizeGranule != 0) {
    throw UsageError(msg("--size {size} is not a multiple of 64KiB; the lesson cuts it into chunks that share no page",
                         arg("size", format_bytes(p.size))));
  }
  Measurements m;
  require_support(ctx.device, m);
  const std::uint64_t sparse_bytes = sparse_reads(p.size / sizeof(Word), p.sparse) * kLineWords * sizeof(Word);
  require_device_memory("--size " + format_bytes(p.size), 4 * p.size + sparse_bytes,
                        Message("input and output as device buffers and as managed memory"));
  const auto page = sysconf(_SC_PAGESIZE);
  Rig rig(p, ctx.device, page > 0 ? static_cast<std::size_t>(page) : 4096);
  m.bytes = p.size;
  m.chunk_count = static_cast<int>(rig.chunks.size());
  m.chunk_bytes = rig.largest_chunk().count() * sizeof(Word);
  m.page_bytes = rig.page_words * sizeof(Word);

  measure_stages(rig, m, ctx);
  measure_explicit(rig, m, ctx);
  measure_on_demand(rig, m, ctx);
  measure_prefetched(rig, m, ctx);
  measure_reuse(rig, p, m, ctx);
  measure_sparse(rig, p, m, ctx);
  if (ctx.tracing()) trace_ways(rig, m);
  return m;
}

}  // namespace cudalab::unified_memory
