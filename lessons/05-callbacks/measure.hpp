// Lesson 05's experiments on the GPU, and everything they measured, as plain data.
#pragma once

#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::callbacks {

// One host function after a kernel: how long after the kernel's last write it started running.
struct LatencySample {
  double latency_us = 0;
  double clock_uncertainty_us = 0;  // half the tightest host<->GPU round trip of its calibration
};

// Kernel, a host function sleeping --callback-ms, kernel in one stream; a long kernel in another.
struct BlockingSample {
  double gap_ms = 0;         // first kernel's end -> next kernel's start, same stream
  double other_busy_ms = 0;  // how much of that gap the other stream's kernel was running
};

// A host function sleeps on stream A; meanwhile an idle stream B gets a kernel, a copy and a
// host function. Host clock for the host functions, CUDA events for the GPU work.
struct CrossStreamSample {
  double sleep_left_ms = 0;     // B's enqueue -> A's host function returns
  double host_fn_wait_ms = 0;   // B's host function: enqueue -> start
  double kernel_us = 0;         // B's kernel: enqueue -> done
  double kernel_copy_us = 0;    // B's kernel and copy: enqueue -> copy done
};

// One synchronize loop and one callback + worker pipeline over the same batches.
struct PipelineSample {
  double sync_ms = 0;
  double worker_ms = 0;
  double host_ms_per_batch = 0;  // prepare + check, from the synchronize loop
  double gpu_ms_per_batch = 0;   // copy-kernel-copy on the GPU's clock (events), from the synchronize loop
};

struct Measurements {
  std::vector<LatencySample> latency;  // cudaLaunchHostFunc
  LatencySample legacy;                // cudaStreamAddCallback, once
  Tally ordering;                      // elements each callback saw written by the kernel before it
  std::vector<BlockingSample> blocking;
  std::vector<CrossStreamSample> cross_alone;  // the same, with nothing sleeping on stream A
  std::vector<CrossStreamSample> cross;        // with A's host function sleeping --callback-ms
  Tally cross_results;                         // B's kernel output, copied back, against the CPU
  std::vector<PipelineSample> pipeline;
  Tally batches;
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::callbacks
