// The simplest honest model of a host<->device copy: t(n) = latency + n / bandwidth. Pure C++,
// unit-tested without a GPU; lesson 02 fits it per memory kind and direction.
#pragma once

#include <vector>

namespace cudalab::pinned {

struct TransferFit {
  double latency_s = 0;        // fixed cost per copy (driver, DMA setup, PCIe round trip)
  double bandwidth_Bps = 0;    // asymptotic rate for large copies, bytes per second
  // The size at which a copy reaches half the asymptotic bandwidth: latency x bandwidth.
  double half_bandwidth_bytes() const { return latency_s * bandwidth_Bps; }
  double predicted_seconds(double bytes) const { return latency_s + bytes / bandwidth_Bps; }
};

// Least squares weighted by 1/t^2 (relative error), so a 4 KiB copy's microseconds count as much
// as a 256 MiB copy's milliseconds: an unweighted fit lets the big sizes swamp the latency.
// Throws std::invalid_argument for fewer than two distinct sizes, non-positive times, or data
// whose fitted bandwidth is not positive.
TransferFit fit_transfer_time(const std::vector<double>& bytes, const std::vector<double>& seconds);

// How many transfers it takes before paying `extra_setup_s` once (pinning) is repaid by saving
// (slow_s - fast_s) on each transfer. Returns infinity when there is no saving.
double break_even_transfers(double extra_setup_s, double slow_s, double fast_s);

}  // namespace cudalab::pinned
