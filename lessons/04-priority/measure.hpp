// Lesson 04's experiment on the GPU, and everything it measured, as plain data.
#pragma once

#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::priority {

// One run of the urgent kernel behind the background. All on the GPU's clock: the enqueue event
// sits on the idle urgent stream, so the GPU stamps it the moment it arrives.
struct BehindSample {
  double latency_us = 0;         // urgent enqueue -> urgent done
  double enqueue_offset_us = 0;  // background start -> urgent enqueue
  double background_us = 0;      // background start -> background done
};

// The lecture's priority demo, once: its 2000-iteration kernel is launched first, its
// 1000-iteration kernel right after on another stream; each timed from its own stream's start
// event (on an idle stream: the enqueue) to its end, as the lecture did.
struct LectureSample {
  double short_ms = 0;  // 1000 iterations
  double long_ms = 0;   // 2000 iterations
};

struct Measurements {
  int least = 0;     // the device's priority range: least urgent (the default) ...
  int greatest = 0;  // ... to most urgent
  int requested = 0;
  int granted = 0;   // what cudaStreamGetPriority says the urgent stream got
  int sm_count = 0;
  int blocks_per_sm = 0;
  int background_blocks = 0;
  std::vector<double> alone_us;      // the urgent kernel on an idle GPU
  std::vector<BehindSample> same;    // behind the background, at its priority
  std::vector<BehindSample> high;    // behind the background, at `granted`
  Tally background;
  Tally urgent;
  // The lecture's demo: each kernel alone, then both with the lecture's priorities (the short
  // kernel's stream most urgent) and with them swapped (the long kernel's stream most urgent).
  int lecture_blocks = 0;         // blocks per kernel
  int lecture_blocks_per_sm = 0;  // of the sin/cos kernel, from the occupancy API
  std::vector<double> lecture_short_alone_ms;
  std::vector<double> lecture_long_alone_ms;
  std::vector<LectureSample> lecture_as_given;
  std::vector<LectureSample> lecture_swapped;
  Tally lecture_results;
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::priority
