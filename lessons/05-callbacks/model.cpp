#include "model.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/core/repetitions.hpp"
#include "common/core/stats.hpp"

namespace cudalab::callbacks {

ClockCalibration calibrate(const std::vector<ClockProbe>& probes) {
  if (probes.empty()) throw std::invalid_argument("calibrate: no probes");
  const auto tightest = std::min_element(probes.begin(), probes.end(), [](const ClockProbe& a, const ClockProbe& b) {
    return a.host_receive_ns - a.host_send_ns < b.host_receive_ns - b.host_send_ns;
  });
  const std::int64_t half_trip = (tightest->host_receive_ns - tightest->host_send_ns) / 2;
  return ClockCalibration{tightest->gpu_ns - (tightest->host_send_ns + half_trip), half_trip};
}

double callback_latency_us(std::int64_t host_callback_ns, std::int64_t gpu_end_ns, const ClockCalibration& c) {
  const std::int64_t gpu_end_on_host_clock = gpu_end_ns - c.offset_ns;
  return static_cast<double>(host_callback_ns - gpu_end_on_host_clock) / 1000.0;
}

std::int64_t overlap_ns(std::int64_t a_begin, std::int64_t a_end, std::int64_t b_begin, std::int64_t b_end) {
  return std::max<std::int64_t>(0, std::min(a_end, b_end) - std::max(a_begin, b_begin));
}

double predict_blocked_gap_ms(double callback_ms, double callback_latency_us) {
  return callback_ms + callback_latency_us / 1000.0;
}

double predict_pipeline_speedup(double host_ms_per_batch, double gpu_ms_per_batch) {
  const double slower = std::max(host_ms_per_batch, gpu_ms_per_batch);
  if (slower <= 0) return 1.0;
  return (host_ms_per_batch + gpu_ms_per_batch) / slower;
}

double predict_shared_thread_wait_ms(double sleep_left_ms, double alone_wait_ms, double dispatch_ms) {
  return std::max(alone_wait_ms, sleep_left_ms + dispatch_ms);
}

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  const double dispatch_us = m.latency.empty() ? 0.0 : median_of(column(m.latency, &LatencySample::latency_us));
  out.blocked_gap_ms = predict_blocked_gap_ms(p.callback_ms, dispatch_us);
  if (!m.pipeline.empty()) {
    out.pipeline_speedup = predict_pipeline_speedup(median_of(column(m.pipeline, &PipelineSample::host_ms_per_batch)),
                                                    median_of(column(m.pipeline, &PipelineSample::gpu_ms_per_batch)));
  }
  if (!m.cross_alone.empty()) {
    const double alone_wait = median_of(column(m.cross_alone, &CrossStreamSample::host_fn_wait_ms));
    for (const auto& s : m.cross) {
      out.cross_wait_ms.push_back(predict_shared_thread_wait_ms(s.sleep_left_ms, alone_wait, dispatch_us / 1000.0));
    }
    out.cross_kernel_us = median_of(column(m.cross_alone, &CrossStreamSample::kernel_us));
    out.cross_kernel_copy_us = median_of(column(m.cross_alone, &CrossStreamSample::kernel_copy_us));
  }
  return out;
}

}  // namespace cudalab::callbacks
