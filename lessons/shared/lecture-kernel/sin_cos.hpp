// The lectures' compute kernel, as lecture 002's program writes it (cuda_basics/05_stream_overlap.cu
// in shizhengLi/cuda-triton-learning): one thread per element, blocks of 256, iterating
// x <- sin(x) + cos(x). Lesson 03 replays that program's overlap and transfer/compute demos with
// it, lesson 04 its priority demo. This header is pure: inputs and the CPU reference; the
// kernel is in sin_cos_kernel.hpp.
#pragma once

#include <cstddef>
#include <vector>

#include "common/core/tally.hpp"

namespace cudalab::lecture {

constexpr int kThreads = 256;

// The lecture's inputs are rand() % 100 / 100: a hundred distinct values. Ours are the same
// hundred, in order, so the CPU computes each result once and checks every element against it.
constexpr int kDistinctInputs = 100;
inline float input(std::size_t i) { return static_cast<float>(i % kDistinctInputs) / 100.0f; }

// Largest |GPU - CPU| allowed per element: x <- sin x + cos x contracts towards its fixed point
// (slope -0.65 there), so the few-ulp error of each step stays a few ulp; 1e-5 is ~80 ulp at 1.26.
// A poisoned element (NaN) or a zero from an unwritten page never passes.
constexpr double kTolerance = 1e-5;

// The result for each distinct input after `iterations` steps, computed in double.
std::vector<double> sin_cos_on_cpu(int iterations);

// Elements of `out` (element i came from input(first + i)) within kTolerance of `expected`.
Tally count_matching(const float* out, std::size_t count, const std::vector<double>& expected, std::size_t first = 0);

// Blocks of kThreads for `elements`, one thread each.
inline int blocks_for(std::size_t elements) { return static_cast<int>((elements + kThreads - 1) / kThreads); }

}  // namespace cudalab::lecture
