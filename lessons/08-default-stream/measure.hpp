// Lesson 08's experiment on the GPU, and everything it measured, as plain data.
#pragma once

#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::default_stream {

// One way of enqueuing the same kernels: every timed run's total (first kernel's start gate to
// the last lane's end, on the GPU's clock) and every element it wrote, checked on the CPU.
struct Case {
  std::vector<double> total_us;
  Tally results;
};

struct Measurements {
  Case alone;  // one kernel on an idle GPU
  // Stream A, stream 0, stream B in turn, `kernels` rounds: A and B blocking, then non-blocking.
  Case stream0_blocking;
  Case stream0_nonblocking;
  // Two host threads, each launching `kernels` kernels on its default stream.
  Case threads_legacy;      // cudaStreamLegacy: both threads share stream 0
  Case threads_per_thread;  // cudaStreamPerThread: each thread its own stream
  // One host thread, `kernels` rounds of its per-thread default stream in turns with stream 0,
  // then with a blocking stream.
  Case per_thread_beside_stream0;
  Case per_thread_beside_blocking;
  // Two non-blocking streams, 2 x `kernels` kernels, each with a temporary buffer of its own.
  Case alloc_sync;   // cudaMalloc / cudaFree around each kernel
  Case alloc_async;  // cudaMallocAsync / cudaFreeAsync on the kernel's stream
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::default_stream
