// How every lesson times GPU work: warm up, repeat, keep every sample (the report shows the
// median with min/max and the JSON keeps them all). Times come from CUDA events.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <vector>

#include "cuda_raii.hpp"

namespace cudalab {

struct Repetitions {
  int warmup = 2;
  int repeat = 10;
};

// Host wall time since `start`, for what CUDA events cannot see: how long a host call blocked,
// or what an allocation cost.
double host_ms_since(std::chrono::steady_clock::time_point start);
double host_us_since(std::chrono::steady_clock::time_point start);

// Runs `enqueue(stream)` warmup + repeat times; each timed run is bracketed by events on
// `stream`, so enqueue must put all its work on `stream` or join its other streams back into
// it. Returns the repeat samples in milliseconds.
std::vector<double> time_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue);

// For experiments that time themselves (e.g. several events inside one run): calls
// `run_once()` warmup times discarding the result, then repeat times keeping it.
std::vector<double> repeat_measurement(const Repetitions& reps,
                                       const std::function<double()>& run_once);

}  // namespace cudalab
