// What the block scheduler predicts for an urgent kernel enqueued while a GPU-filling background
// kernel runs. Pure C++, unit-tested; the inputs are measured in the same run.
#pragma once

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::priority {

// Blocks that fill every SM `waves` times over; throws std::invalid_argument on a count that
// does not fit a launch (over 2^31 - 1) or non-positive inputs.
int background_block_count(int sm_count, int blocks_per_sm, int waves);

// Same priority: the scheduler hands out every queued background block before any urgent block,
// and the last wave occupies every slot, so the urgent kernel starts when the background ends.
// latency = (background end - enqueue) + the urgent kernel's own time.
double predict_same_priority_latency_us(double background_us, double enqueue_offset_us, double urgent_alone_us);

// Higher priority: the urgent blocks jump the queue and take the first slots that free up, i.e.
// when the wave running at enqueue finishes (running blocks are never pre-empted).
// latency = (end of the current wave - enqueue) + the urgent kernel's own time.
double predict_high_priority_latency_us(double background_us, int waves, double enqueue_offset_us,
                                        double urgent_alone_us);

// The lecture's demo: the long kernel (alone: long_alone_ms, in `rounds` rounds of blocks that
// each fill the GPU) is launched first, the short one (alone: short_alone_ms) right after.
// Short kernel more urgent (the lecture's setting): its blocks take the slots the long kernel's
// first round frees, so short ~ one round of long + short alone, and long ~ both together.
LectureSample predict_lecture_as_given(double short_alone_ms, double long_alone_ms, int rounds);
// Long kernel more urgent (swapped): every long block goes first, so long ~ alone and the short
// kernel waits for all of it: short ~ long alone + short alone.
LectureSample predict_lecture_swapped(double short_alone_ms, double long_alone_ms);
// Rounds a kernel of `blocks` needs on `sm_count` SMs holding `blocks_per_sm` each (at least 1).
int rounds_of_blocks(int blocks, int sm_count, int blocks_per_sm);

// The model applied to every timed run (each with its own background length and enqueue
// offset); a prediction per run, so the report can show their median beside the measured one.
struct Prediction {
  std::vector<double> same_us;
  std::vector<double> high_us;
  LectureSample lecture_as_given;
  LectureSample lecture_swapped;
};
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::priority
