#include "common/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace cudalab {

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) throw std::invalid_argument("quantile of no samples");
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(samples.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return samples[std::min(index, samples.size() - 1)];
}

Summary summarize(const std::vector<double>& samples) {
  if (samples.empty()) throw std::invalid_argument("summary of no samples");
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  Summary s;
  s.count = sorted.size();
  const std::size_t mid = sorted.size() / 2;
  s.median = sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  s.p99 = quantile(sorted, 0.99);
  s.spread = s.median != 0 ? (s.max - s.min) / std::fabs(s.median) : 0.0;

  std::vector<double> deviations;
  for (double x : sorted) deviations.push_back(std::fabs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  const double raw_mad = deviations.size() % 2 == 1 ? deviations[mid] : (deviations[mid - 1] + deviations[mid]) / 2.0;
  s.mad = 1.4826 * raw_mad;
  double low = s.median, high = s.median;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (s.mad > 0 && std::fabs(samples[i] - s.median) > kOutlierMads * s.mad) {
      s.outliers.push_back(i);
    } else {
      low = std::min(low, samples[i]);
      high = std::max(high, samples[i]);
    }
  }
  s.inlier_spread = s.median != 0 ? (high - low) / std::fabs(s.median) : 0.0;
  return s;
}

std::size_t wide_outliers(const std::vector<double>& samples, const Summary& s, double tolerance) {
  std::size_t wide = 0;
  for (std::size_t i : s.outliers) {
    if (i < samples.size() && std::fabs(samples[i] - s.median) > 0.5 * tolerance * std::fabs(s.median)) ++wide;
  }
  return wide;
}

bool steady(const std::vector<double>& samples, double tolerance) {
  if (samples.size() < 3) return true;
  const Summary s = summarize(samples);
  return s.inlier_spread <= tolerance && !too_many_outliers(wide_outliers(samples, s, tolerance), samples.size());
}

double median_ci_relative_halfwidth(const std::vector<double>& samples) {
  const std::size_t n = samples.size();
  if (n < 5) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2.0 - half)));
  const auto hi = std::min(n - 1, static_cast<std::size_t>(std::ceil(n / 2.0 + half)));
  const double median = median_of(sorted);
  return median != 0 ? (sorted[hi] - sorted[lo]) / 2.0 / std::fabs(median) : 0.0;
}

bool settled(const std::vector<double>& samples, std::size_t window, double tolerance) {
  if (samples.size() < window || window == 0) return false;
  const std::vector<double> tail(samples.end() - static_cast<std::ptrdiff_t>(window), samples.end());
  const double median = median_of(tail);
  for (double x : tail) {
    if (median == 0 || std::fabs(x - median) > tolerance * std::fabs(median)) return false;
  }
  return true;
}

double median_of(const std::vector<double>& samples) { return summarize(samples).median; }

LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) {
    throw std::invalid_argument("fit_line needs two or more (x, y) pairs");
  }
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
  const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx == 0) throw std::invalid_argument("fit_line needs at least two distinct x values");
  LinearFit fit;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  fit.r2 = syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
  return fit;
}

}  // namespace cudalab
