#include <gtest/gtest.h>

#include <stdexcept>

#include "common/core/stats.hpp"

using namespace cudalab;

TEST(Stats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(summarize({3, 1, 2}).median, 2);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
}

TEST(Stats, MinMaxMeanSpread) {
  const Summary s = summarize({2, 4, 6, 8});
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.spread, 6 / 5.0);
  EXPECT_EQ(s.count, 4u);
}

TEST(Stats, NearestRankQuantiles) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(quantile(v, 0.99), 99);
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 50);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 100);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(summarize({5}).p99, 5);
}

TEST(Stats, EmptySamplesAreAnError) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(quantile({}, 0.5), std::invalid_argument);
}

TEST(Stats, LineFitRecoversLatencyAndBandwidth) {
  // t(n) = 10 us + n / (50 bytes/us)
  std::vector<double> n{1000, 2000, 4000, 8000}, t;
  for (double x : n) t.push_back(10 + x / 50);
  const LinearFit fit = fit_line(n, t);
  EXPECT_NEAR(fit.intercept, 10, 1e-9);
  EXPECT_NEAR(1 / fit.slope, 50, 1e-9);
  EXPECT_NEAR(fit.r2, 1, 1e-12);
  EXPECT_THROW(fit_line({1}, {1}), std::invalid_argument);
  EXPECT_THROW(fit_line({2, 2}, {1, 3}), std::invalid_argument);
}
