#include <gtest/gtest.h>

#include <stdexcept>

#include "common/core/repetitions.hpp"
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

// The report's noise rule on bare samples: a steady bulk, a bulk spread too wide, and a second
// mode of more than one sample in five.
TEST(Stats, SteadyIsTheReportsNoiseRule) {
  EXPECT_TRUE(steady({}, 0.10));
  EXPECT_TRUE(steady({1.0, 5.0}, 0.10));  // too few to tell
  EXPECT_TRUE(steady({2.22, 2.24, 2.21, 2.23, 2.22, 2.20}, 0.10));
  EXPECT_FALSE(steady({2.0, 2.3, 2.1, 1.9, 2.25}, 0.10));
  // Lone process 4 of 03 on the lab H100: ten pairs through a passing slowdown among twenty.
  const std::vector<double> episode = {2.22, 2.24, 2.22, 2.2,  2.21, 2.21, 2.21, 2.21, 2.22, 2.21,
                                       1.33, 1.78, 1.74, 1.97, 1.89, 1.86, 1.48, 1.76, 1.89, 1.91,
                                       1.86, 1.86, 1.97, 2.01, 2.07, 2.25, 2.22, 2.23, 2.22, 2.21};
  EXPECT_FALSE(steady(episode, 0.10));
}

namespace {
// A fake pair source: ratios 2.2, except `slow` pairs from pair `from` on, whose ratios jump
// between 1.77 and 2.3.
struct FakePairs {
  int from = 0, slow = 0, taken = 0, warmups = 0;
  std::pair<double, double> operator()(bool warm_up) {
    warmups += warm_up ? 1 : 0;
    const bool slowed = taken >= from && taken < from + slow;
    ++taken;
    if (!slowed) return {3.82, 3.82 / 2.2};
    return taken % 2 == 0 ? std::pair<double, double>{6.9, 3.9} : std::pair<double, double>{6.9, 3.0};
  }
};
}  // namespace

TEST(Repetitions, APairBlockThroughAPassingSlowdownIsSetAsideAndMeasuredAgain) {
  const Repetitions fixed{1, 10, false};
  FakePairs quiet;
  const PairedSamples calm = pairs_in_steady_blocks(fixed, 0.10, quiet);
  EXPECT_EQ(calm.blocks_set_aside, 0);
  EXPECT_EQ(calm.ratios().size(), 10u);
  EXPECT_EQ(quiet.warmups, 1);

  FakePairs episode{3, 4};  // pairs 3..6 of the first block slowed
  const PairedSamples again = pairs_in_steady_blocks(fixed, 0.10, episode);
  EXPECT_EQ(again.blocks_set_aside, 1);
  EXPECT_EQ(again.set_aside_ratios.size(), 10u);
  EXPECT_EQ(again.ratios().size(), 10u);
  for (double r : again.ratios()) EXPECT_NEAR(r, 2.2, 1e-9);
  EXPECT_EQ(episode.taken, 20);
  EXPECT_EQ(episode.warmups, 1) << "only the very first pair warms up";

  FakePairs storm{0, 1000};  // never quiet: three blocks, the last one kept as it is
  const PairedSamples kept = pairs_in_steady_blocks(fixed, 0.10, storm);
  EXPECT_EQ(kept.blocks_set_aside, kMaxBlocks - 1);
  EXPECT_EQ(storm.taken, 10 * kMaxBlocks);
}

TEST(Repetitions, ASteadyBlockIsKeptAndANoisyOneTakenAgain) {
  int calls = 0;
  const SteadyBlock first = steady_block(0.10, [&] {
    ++calls;
    return std::vector<double>{55.2, 55.3, 55.1, 55.2};
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(first.blocks_set_aside, 0);
  EXPECT_TRUE(first.set_aside.empty());
  // Lone process 2 of 02 on the lab H100: a burst through a slowdown, then a quiet one.
  calls = 0;
  const SteadyBlock second = steady_block(0.10, [&] {
    return ++calls == 1 ? std::vector<double>{55.2, 54.9, 38.8, 39.8, 41.8, 45.2, 55.1}
                        : std::vector<double>{55.1, 55.2, 55.0, 55.2, 55.3};
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(second.blocks_set_aside, 1);
  EXPECT_EQ(second.set_aside.size(), 7u);
  EXPECT_EQ(second.kept.size(), 5u);
}
