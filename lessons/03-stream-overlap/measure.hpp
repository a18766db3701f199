// Lesson 03's experiment on the GPU, and everything it measured, as plain data.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "lecture_replica.hpp"
#include "params.hpp"
#include "variants.hpp"

namespace cudalab::stream_overlap {

// How the kernel's iteration count was found when --kernel-iters was not given: timed at two
// counts on one chunk, the line through both solved for one chunk's copy time.
struct Calibration {
  int low_iters = 0;
  int high_iters = 0;
  double low_ms = 0;
  double high_ms = 0;
  double copy_ms = 0;
  // A first line that missed (calibration_missed): its iterations' kernel time and the copy time
  // it aimed at. The stages and the line above are the second measurement's.
  struct Missed {
    double kernel_ms = 0;
    double copy_ms = 0;
  };
  std::optional<Missed> missed;
};

struct VariantRun {
  std::vector<double> ms;  // timed runs; empty for a variant that is only verified
  Tally bytes;             // bytes that matched the CPU reference in the verified run
};

// --full: the depth-first pipeline at one stream count of the sweep (two chunks per stream, the
// same bytes and kernel), with its own stages at that chunk size and the host's time to enqueue it.
struct SweepPoint {
  int streams = 0;
  int chunks = 0;
  std::size_t chunk_bytes = 0;
  std::vector<double> h2d, kernel, d2h;  // one chunk's stages, each alone
  std::vector<double> ms;                // the whole pipeline
  std::vector<double> enqueue_ms;        // host time inside the enqueue loop (the GPU starts meanwhile)
  Tally bytes;                           // every output byte of one run, against the CPU
};

// The stream counts of the sweep: one to the flag's highest, doubling.
inline const std::vector<int> kSweepStreams = {1, 2, 4, 8, 16, 32, 64};

struct Measurements {
  int copy_engines = 0;
  int hardware_queues = 8;      // CUDA_DEVICE_MAX_CONNECTIONS as the run saw it
  bool queues_from_env = false;  // set in the environment (else CUDA's default)
  int chunk_count = 0;
  std::size_t largest_chunk = 0;
  std::size_t smallest_chunk = 0;
  int iters = 0;
  std::optional<Calibration> calibration;
  // One chunk's stages, each alone on one stream, on the largest chunk.
  std::vector<double> h2d_pinned, kernel, d2h_pinned, h2d_pageable, d2h_pageable;
  std::map<Variant, VariantRun> runs;
  // Sequential and depth-first timed in turns, pair by pair: each pair's ratio, the speed-up.
  std::vector<double> depth_first_speedups;
  // Blocks of pairs measured through a passing slowdown and measured again (timing.hpp), and
  // their ratios.
  int pair_blocks_set_aside = 0;
  std::vector<double> set_aside_speedups;
  std::vector<Timeline> timelines;
  // From the traced runs (when tracing): busy time of the sequential lane, and of each
  // depth-first stream's lane.
  std::optional<double> traced_sequential_busy_ms;
  std::vector<double> traced_depth_lane_busy_ms;
  std::optional<LectureReplica> lecture;  // --full: lecture 002's program, replayed as written
  std::vector<SweepPoint> stream_sweep;   // --full: the depth-first pipeline over kSweepStreams
};

// CUDA_DEVICE_MAX_CONNECTIONS from the environment: CUDA's default (8) when unset or not a
// number in 1..32. Sets *from_env when the variable was used.
int hardware_queues_from_env(bool* from_env);

Measurements measure(const Params& p, const RunContext& ctx);

// The lab's own yardstick for the exercise (exercise_bench.hpp): the stages, the kernel's
// iterations and the headline pair, measured as measure() measures them, and nothing else.
Measurements measure_yardstick(const Params& p, const RunContext& ctx);

}  // namespace cudalab::stream_overlap
