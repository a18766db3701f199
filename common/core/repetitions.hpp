// How many times a lesson runs an experiment: warm-up and timed repetitions, adaptive unless the
// user fixed the count, and the loop for experiments that time themselves. No CUDA: the GPU's
// event timing sits on top of this in gpu/timing.hpp.
#pragma once

#include <chrono>
#include <vector>

#include "common/core/interrupt.hpp"
#include "common/core/progress.hpp"
#include "common/core/stats.hpp"

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

// A block of samples taken together (a burst of copies, a run of pairs) can fall into a passing
// slowdown of a shared machine: on the lab H100, with no other process on the GPU, pinned H2D
// copies fell from 55 to 24 GB/s for some ten samples, and both sides of 03's pairs took twice as
// long for about 150 ms. `take_block()` returns one block's samples; a block that is not steady
// (stats.hpp, steady: the report's own noise rule) is set aside and taken again, at most
// kMaxBlocks blocks in all. The last block is kept; when it is noisy too, the report says so.
inline constexpr int kMaxBlocks = 3;
struct SteadyBlock {
  std::vector<double> kept;
  std::vector<double> set_aside;  // the samples of the blocks set aside, in order
  int blocks_set_aside = 0;
};
template <class TakeBlock>
SteadyBlock steady_block(double tolerance, TakeBlock&& take_block) {
  SteadyBlock out;
  for (int block = 1;; ++block) {
    out.kept = take_block();
    if (block == kMaxBlocks || steady(out.kept, tolerance)) return out;
    ++out.blocks_set_aside;
    out.set_aside.insert(out.set_aside.end(), out.kept.begin(), out.kept.end());
  }
}

// Two pieces of work timed in turns, pair by pair (gpu/timing.hpp, time_pairs_on_stream), in
// steady blocks of their ratios: a drift of the machine slows both sides of a pair alike, a
// passing slowdown does not.
struct PairedSamples {
  std::vector<double> a_ms, b_ms;
  int blocks_set_aside = 0;
  std::vector<double> set_aside_ratios;  // the ratios of the blocks set aside, in order
  std::vector<double> ratios() const;    // a_ms[i] / b_ms[i]
};

// `take_pair(warm_up)` times A then B once (warming up first when asked, which is only for the
// first pair) and returns {a_ms, b_ms}. Each block has as many pairs as needs_more_samples asks.
template <class TakePair>
PairedSamples pairs_in_steady_blocks(const Repetitions& reps, double tolerance, TakePair&& take_pair) {
  PairedSamples pairs;
  bool warmed_up = false;
  const SteadyBlock blocks = steady_block(tolerance, [&] {
    pairs.a_ms.clear();
    pairs.b_ms.clear();
    do {
      throw_if_interrupted();
      const auto [a, b] = take_pair(!warmed_up);
      warmed_up = true;
      pairs.a_ms.push_back(a);
      pairs.b_ms.push_back(b);
    } while (needs_more_samples(pairs.a_ms, reps));
    return pairs.ratios();
  });
  pairs.blocks_set_aside = blocks.blocks_set_aside;
  pairs.set_aside_ratios = blocks.set_aside;
  return pairs;
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
