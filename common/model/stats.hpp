// Summary statistics of repeated measurements. Pure C++, unit-tested without a GPU.
#pragma once

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
};

// Throws std::invalid_argument on an empty sample set.
Summary summarize(const std::vector<double>& samples);

// The median alone, for lessons that compare medians of several measurements.
double median_of(const std::vector<double>& samples);

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
