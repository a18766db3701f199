// Summary statistics of repeated measurements. Pure C++, unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <vector>

namespace cudalab {

struct Summary {
  double median = 0;
  double min = 0;
  double max = 0;
  double mean = 0;
  double p99 = 0;      // nearest-rank 99th percentile
  double spread = 0;   // (max - min) / median: the run-to-run variation a reader should see
  std::size_t count = 0;
  // Robust noise: samples further than kOutlierMads scaled MADs from the median are outliers
  // (hyperfine's rule of thumb); the spread of the rest says whether the figure is steady.
  double mad = 0;                      // median absolute deviation, scaled to a normal's sigma
  std::vector<std::size_t> outliers;   // indices into the samples, in sample order
  double inlier_spread = 0;            // (max - min) / median over the samples that are not outliers
};

inline constexpr double kOutlierMads = 3.0;
// A figure whose inlier spread is above its tolerance is printed as noisy. Lessons may set a
// metric's own tolerance (Metric::spread_tolerance); this is the default.
inline constexpr double kDefaultSpreadTolerance = 0.10;

// Throws std::invalid_argument on an empty sample set.
Summary summarize(const std::vector<double>& samples);

// The outliers of `s` (the summary of `samples`) that lie further from the median than half of a
// `tolerance` (the ± band the figure may keep): the ones that show a second mode rather than
// a tight bulk's harmless stragglers (a 54.0 against a bulk of 54.8 GB/s is an outlier by MADs
// but changes nothing a reader would see).
std::size_t wide_outliers(const std::vector<double>& samples, const Summary& s, double tolerance);

// A figure with more than one in kOutlierShareLimit of its samples set aside as wide outliers
// is noisy whatever its inlier spread says: the samples left over describe only one of its modes.
inline constexpr std::size_t kOutlierShareLimit = 5;
inline bool too_many_outliers(std::size_t wide, std::size_t count) { return wide * kOutlierShareLimit > count; }

// The noise rule the report prints (report.hpp, Metric::noise_reason), on bare samples: true
// for fewer than three, or when the bulk spreads within `tolerance` and no more than one in
// kOutlierShareLimit samples are wide outliers.
bool steady(const std::vector<double>& samples, double tolerance);

// The median alone, for lessons that compare medians of several measurements.
double median_of(const std::vector<double>& samples);

// Half-width of a ~95% confidence interval of the median (order statistics n/2 -/+ 0.98 sqrt(n)),
// relative to the median: how far a new run's median may land. Infinity for fewer than 5 samples.
double median_ci_relative_halfwidth(const std::vector<double>& samples);

// True when the last `window` samples of a warm-up stay within `tolerance` of their median: the
// clocks, caches and lazy driver setup have settled.
bool settled(const std::vector<double>& samples, std::size_t window = 3, double tolerance = 0.05);

// The q-quantile (0..1) by nearest rank over a copy of the samples.
double quantile(std::vector<double> samples, double q);

// Least-squares fit y = intercept + slope * x; used for t(n) = latency + n / bandwidth.
struct LinearFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;
};
LinearFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace cudalab
