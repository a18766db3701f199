// Lesson 05's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::callbacks {

// The median dispatch latency of a host function must stay under this: a fraction of a
// millisecond. On the lab H100's host the median moved between 38 and about 110 us from one
// process to the next, so "under 100 us" failed on a correct run.
inline constexpr double kLatencyMaxMedianUs = 200.0;
// While a callback sleeps, the other stream's kernel must run for at least this share of it.
inline constexpr double kOtherStreamMinShare = 0.5;
// A host function on an idle stream waits at least this share of the sleep left at its enqueue
// (a thread of its own would start it within microseconds; 0.9 leaves room for clock reads).
inline constexpr double kSharedThreadMinShare = 0.9;
// The kernel and copy on that stream finish within this share of the sleep left (they would take
// all of it if the sleeping host function held the GPU or the stream back).
inline constexpr double kGpuWorkMaxShareOfSleep = 0.25;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::callbacks
