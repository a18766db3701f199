// How many times a lesson runs an experiment: warm-up and timed repetitions, adaptive unless the
// user fixed the count, and the loop for experiments that time themselves. No CUDA: the GPU's
// event timing sits on top of this in gpu/timing.hpp.
#pragma once

#include <chrono>
#include <vector>

#include "common/core/interrupt.hpp"
#include "common/core/progress.hpp"

namespace cudalab {

struct Repetitions {
  int warmup = 2;   // at least this many untimed runs
  int repeat = 10;  // at least this many timed runs
  // Adaptive (unless the user gave --repeat): time_on_stream warms up until the figures settle
  // and repeats until the median is pinned down, within the bounds below.
  bool adaptive = true;
};

// The bounds of adaptive measurement: warm-up stops once the last 3 runs agree within 5% (at
// most kMaxExtraWarmups more runs); repetition stops once the median's ~95% confidence interval
// is within ±kTargetMedianCi, or the timed runs reach kMaxRepeatFactor x repeat, or they have
// taken kRepeatBudgetMs of GPU time (small: a lesson times dozens of these, `all` must stay quick).
inline constexpr int kMaxExtraWarmups = 5;
inline constexpr double kTargetMedianCi = 0.01;
inline constexpr int kMaxRepeatFactor = 2;
inline constexpr double kRepeatBudgetMs = 60.0;

// Whether adaptive repetition should take another timed sample (pure, unit-tested).
bool needs_more_samples(const std::vector<double>& samples_ms, const Repetitions& reps);

// Host wall time since `start`, for what CUDA events cannot see: how long a host call blocked,
// or what an allocation cost.
double host_ms_since(std::chrono::steady_clock::time_point start);
double host_us_since(std::chrono::steady_clock::time_point start);

// For experiments that time themselves (several events inside one run, side measurements):
// calls `run_once()` warmup times discarding what it returns, then repeat times keeping it.
// Only the timed runs come back; a Sample may be a struct of everything one run measured.
template <class RunOnce>
auto repeat(const Repetitions& reps, RunOnce&& run_once) -> std::vector<decltype(run_once())> {
  for (int i = 0; i < reps.warmup; ++i) {
    throw_if_interrupted();
    (void)run_once();
    progress::tick();
  }
  std::vector<decltype(run_once())> samples;
  samples.reserve(static_cast<std::size_t>(reps.repeat));
  for (int i = 0; i < reps.repeat; ++i) {
    throw_if_interrupted();
    samples.push_back(run_once());
    progress::tick();
  }
  return samples;
}

// One field of every sample: column(samples, &BehindSample::latency_us).
template <class Sample>
std::vector<double> column(const std::vector<Sample>& samples, double Sample::*field) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (const auto& s : samples) out.push_back(s.*field);
  return out;
}

}  // namespace cudalab
