// Lesson 11's experiment on the GPU, and everything it measured, as plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::unified_memory {

// One timed run of a pipelined way: the GPU's time, and how long the host took to enqueue it
// (a call that waits for the GPU shows here: the enqueue then takes as long as the run).
struct EnqueuedSample {
  double ms = 0;
  double enqueue_ms = 0;
};

// One run of the on-demand way, on one clock (the GPU's events): the kernel, whose first touch
// of each input page faults it over, then the host's first read of each output page, which
// faults it back.
struct OnDemandSample {
  double kernel_ms = 0;
  double host_ms = 0;
  double total_ms() const { return kernel_ms + host_ms; }
};

// The on-demand way on the first part of the buffers: what the fault cost per page is fitted to.
struct FaultProbe {
  std::uint64_t bytes = 0;
  std::uint64_t pages = 0;
  std::vector<OnDemandSample> samples;
};

// One reuse of the zero-copy sweep: the kernel on device memory alone, the copy-first way (one
// stream: copy the input in, run, copy the output out) and the kernel on mapped host memory.
struct ReuseCase {
  int reuse = 1;
  std::vector<double> kernel_ms;
  std::vector<double> copy_first_ms;
  std::vector<double> zero_copy_ms;
};

struct Measurements {
  std::uint64_t bytes = 0;        // of input, and as many of output
  std::uint64_t chunk_bytes = 0;  // the largest chunk of the pipelined ways
  int chunk_count = 0;
  std::uint64_t page_bytes = 0;   // the host's page size: the unit the fault cost is given in
  int copy_engines = 0;
  bool pageable_memory_access = false;  // the GPU may also touch malloc'd memory (HMM or ATS)

  // One chunk's stages, alone, pinned and device memory: the copy engines' bandwidths and the kernel.
  std::vector<double> h2d_chunk_ms, kernel_chunk_ms, d2h_chunk_ms;

  // The four ways (the fourth, zero-copy, is reuse[0]).
  std::vector<EnqueuedSample> explicit_runs;
  std::vector<OnDemandSample> on_demand;
  std::vector<EnqueuedSample> prefetched;
  std::vector<FaultProbe> probes;

  std::vector<ReuseCase> reuse;  // reuse 1, 2, 4, ... up to --reuse

  std::uint64_t sparse_reads = 0;  // lines the sparse read takes
  std::vector<double> sparse_kernel_ms, sparse_copy_first_ms, sparse_zero_copy_ms;

  // Words that matched the CPU reference, per way over every verified run.
  Tally explicit_words, on_demand_words, prefetched_words, copy_first_words, zero_copy_words;

  std::vector<Timeline> timelines;
  // When traced: whether CUPTI recorded unified memory here, and which timelines show the
  // on-demand and the prefetched way (indices into `timelines`, -1: none).
  bool faults_traced = false;
  int on_demand_timeline = -1;
  int prefetched_timeline = -1;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::unified_memory
