#include "transfer_model.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace cudalab::pinned {

TransferFit fit_transfer_time(const std::vector<double>& bytes, const std::vector<double>& seconds) {
  if (bytes.size() != seconds.size() || bytes.size() < 2) {
    throw std::invalid_argument("fit_transfer_time needs two or more (size, time) pairs");
  }
  // Normal equations of sum w (a + b x - y)^2 with w = 1 / y^2.
  double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!(seconds[i] > 0)) throw std::invalid_argument("fit_transfer_time needs positive times");
    const double w = 1.0 / (seconds[i] * seconds[i]);
    sw += w;
    swx += w * bytes[i];
    swxx += w * bytes[i] * bytes[i];
    swy += w * seconds[i];
    swxy += w * bytes[i] * seconds[i];
  }
  const double det = sw * swxx - swx * swx;
  if (!(std::fabs(det) > 0)) throw std::invalid_argument("fit_transfer_time needs two distinct sizes");
  const double latency = (swy * swxx - swx * swxy) / det;
  const double seconds_per_byte = (sw * swxy - swx * swy) / det;
  if (!(seconds_per_byte > 0)) throw std::invalid_argument("fit_transfer_time: time does not grow with size");
  TransferFit fit;
  fit.latency_s = std::max(0.0, latency);  // noise can push a near-zero latency below zero
  fit.bandwidth_Bps = 1.0 / seconds_per_byte;
  return fit;
}

double break_even_transfers(double extra_setup_s, double slow_s, double fast_s) {
  const double saving = slow_s - fast_s;
  if (!(saving > 0)) return std::numeric_limits<double>::infinity();
  return std::ceil(std::max(0.0, extra_setup_s) / saving);
}

}  // namespace cudalab::pinned
