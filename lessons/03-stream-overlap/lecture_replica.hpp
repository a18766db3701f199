// Lecture 002's program (cuda_basics/05_stream_overlap.cu in shizhengLi/cuda-triton-learning),
// replayed as it is written: 4M floats in 4 segments, its sin/cos kernel, malloc'd host buffers,
// synchronous copies on the legacy default stream, and its own way of timing (events on the
// legacy stream). Its first run is timed cold, as the program times it: the kernel's first launch
// and the first touch of a fresh output buffer fall inside the timing. Then the same loop warm,
// from pinned memory, and over 4 streams, so the lecture's speed-up splits into cold start,
// pinning and overlap. Plain data here; lecture_replica.cpp runs it.
#pragma once

#include <cstddef>
#include <vector>

#include "common/core/tally.hpp"
#include "common/core/run_context.hpp"

namespace cudalab::stream_overlap {

inline constexpr std::size_t kLectureElements = 4u << 20;  // 16 MiB of floats
inline constexpr int kLectureSegments = 4;                 // one per stream in its overlapped run
inline constexpr int kLectureIterations = 1000;
// Its transfer + compute demo: 2M floats in 4 batches, 1500 iterations, pinned memory.
inline constexpr std::size_t kDemoElements = 2u << 20;
inline constexpr int kDemoBatches = 4;
inline constexpr int kDemoIterations = 1500;
// New output buffers timed in a warm process, untouched and then written beforehand: each stays
// allocated until the end, so none reuses memory a copy has already written to.
inline constexpr int kNewBufferRuns = 5;

struct LectureReplica {
  // False when this process had run the replica before (`cudalab all`, live mode): then the
  // "cold" run is not cold, and the report says so.
  bool first_in_process = true;
  double cold_ms = 0;                 // the program's "sequential" figure: one run, cold
  std::vector<double> untouched_ms;   // the same, warm process, a new malloc'd output nobody touched
  std::vector<double> touched_ms;     // the same, a new output written beforehand
  std::vector<double> warm_ms;        // the same buffers again
  std::vector<double> pinned_ms;      // the same loop from pinned buffers
  std::vector<double> streams_ms;     // the program's "overlapped" run: pinned, one stream per segment
  std::vector<double> h2d_ms, kernel_ms, d2h_ms;  // one segment's stages, pinned, each alone
  std::vector<double> demo_ms;        // the transfer + compute demo, as written (no waits)
  int kernel_blocks = 0;              // blocks of one segment's kernel
  int blocks_per_sm = 0;              // of that kernel, from the occupancy API
  int sm_count = 0;
  int resident_blocks() const { return sm_count * blocks_per_sm; }  // what the GPU runs at once
  Tally cold, untouched, touched, warm, pinned, streams, demo;  // elements matching the CPU
};

// Device memory the replica needs.
inline constexpr std::size_t kLectureDeviceBytes = 2 * (kLectureElements + kDemoElements) * sizeof(float);

LectureReplica measure_lecture_replica(const RunContext& ctx);

}  // namespace cudalab::stream_overlap
