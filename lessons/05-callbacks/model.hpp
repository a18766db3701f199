// Clock calibration and predictions for lesson 05. Pure C++, unit-tested; the inputs are
// measured in the same run.
#pragma once

#include <cstdint>
#include <vector>

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::callbacks {

// One ping-pong between host and GPU: the host stamps before it writes a request and after it
// sees the reply; the GPU stamps %globaltimer when it sees the request, so gpu_ns happened
// somewhere between the two host stamps.
struct ClockProbe {
  std::int64_t host_send_ns = 0;
  std::int64_t host_receive_ns = 0;
  std::int64_t gpu_ns = 0;
};

// gpu_ns = host_ns + offset_ns, to within +- uncertainty_ns (half the tightest round trip).
struct ClockCalibration {
  std::int64_t offset_ns = 0;
  std::int64_t uncertainty_ns = 0;
};

// Uses the probe with the shortest round trip; throws std::invalid_argument when empty.
ClockCalibration calibrate(const std::vector<ClockProbe>& probes);

// Host clock reading at the callback's start minus the GPU work's end, both on the host clock.
double callback_latency_us(std::int64_t host_callback_ns, std::int64_t gpu_end_ns, const ClockCalibration& c);

// Length of the overlap of [a_begin, a_end) and [b_begin, b_end), 0 when they do not meet.
std::int64_t overlap_ns(std::int64_t a_begin, std::int64_t a_end, std::int64_t b_begin, std::int64_t b_end);

// The next kernel in the stream waits for the callback to be dispatched and to return.
double predict_blocked_gap_ms(double callback_ms, double callback_latency_us);

// A synchronize loop does host work and GPU work one after the other; a callback-driven
// pipeline with two batches in flight overlaps them, so each batch costs the larger of the two.
double predict_pipeline_speedup(double host_ms_per_batch, double gpu_ms_per_batch);

// Host functions of all streams run one at a time on the driver's callback thread, so one on an
// idle stream starts only when the sleeping one returns, and then after one dispatch:
// max(its wait with nothing asleep, sleep left at its enqueue + dispatch latency).
double predict_shared_thread_wait_ms(double sleep_left_ms, double alone_wait_ms, double dispatch_ms);

// What the model says, from primitives measured in the same run.
struct Prediction {
  double blocked_gap_ms = 0;          // kernel -> sleeping callback -> kernel, same stream
  double pipeline_speedup = 1;
  std::vector<double> cross_wait_ms;  // per cross-stream sample
  double cross_kernel_us = 0;         // the kernel on stream B: as fast as with nothing asleep
  double cross_kernel_copy_us = 0;
};
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::callbacks
