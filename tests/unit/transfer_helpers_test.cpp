// The generic helpers lessons 02 and 03 build on: chunking with remainders, byte patterns,
// the t(n) = latency + n / bandwidth fit and the pinning break-even.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "lessons/03-stream-overlap/chunking.hpp"
#include "common/bench/host_pattern.hpp"
#include "lessons/02-pinned-vs-pageable/transfer_model.hpp"

using namespace cudalab;

TEST(Chunking, RemaindersAreSpreadNotDropped) {
  for (std::size_t total : {std::size_t{12}, std::size_t{1000003}, std::size_t{7}, std::size_t{64}}) {
    for (int parts : {1, 3, 4, 7}) {
      if (static_cast<std::size_t>(parts) > total) continue;
      const auto chunks = split_into_chunks(total, parts);
      ASSERT_EQ(chunks.size(), static_cast<std::size_t>(parts));
      std::size_t next = 0, smallest = total, largest = 0;
      for (const auto& c : chunks) {
        EXPECT_EQ(c.offset, next) << "chunks are contiguous";
        next += c.count;
        smallest = std::min(smallest, c.count);
        largest = std::max(largest, c.count);
      }
      EXPECT_EQ(next, total) << "every element belongs to a chunk";
      EXPECT_LE(largest - smallest, 1u);
    }
  }
  const auto odd = split_into_chunks(1000003, 3);
  EXPECT_EQ(odd[0].count, 333335u);
  EXPECT_EQ(odd[1].count, 333334u);
  EXPECT_EQ(odd[2].count, 333334u);
  EXPECT_THROW(split_into_chunks(10, 0), std::invalid_argument);
  EXPECT_THROW(split_into_chunks(3, 4), std::invalid_argument);
}

TEST(HostPattern, FillsChecksAndCatchesDamage) {
  std::vector<unsigned char> buffer(1000 + 3);
  fill_pattern(buffer.data(), buffer.size(), 7);
  EXPECT_EQ(count_pattern_matches(buffer.data(), buffer.size(), 7), buffer.size());
  for (std::size_t i : {std::size_t{0}, std::size_t{9}, buffer.size() - 1}) {
    EXPECT_EQ(buffer[i], pattern_byte(i, 7));
  }
  buffer[5] ^= 1;
  buffer[buffer.size() - 1] ^= 0x80;  // the tail after the last whole word
  EXPECT_EQ(count_pattern_matches(buffer.data(), buffer.size(), 7), buffer.size() - 2);
  // Another seed, or the same pattern shifted by one byte, does not pass.
  EXPECT_LT(count_pattern_matches(buffer.data(), buffer.size(), 8), buffer.size() / 8);
  EXPECT_LT(count_pattern_matches(buffer.data() + 1, buffer.size() - 1, 7), buffer.size() / 8);
  poison_against_pattern(buffer.data(), buffer.size(), 7);
  EXPECT_EQ(count_pattern_matches(buffer.data(), buffer.size(), 7), 0u) << "poison differs in every byte";
  // An unaligned start works.
  fill_pattern(buffer.data() + 3, 100, 1);
  EXPECT_EQ(count_pattern_matches(buffer.data() + 3, 100, 1), 100u);
}

TEST(TransferFit, RecoversLatencyAndBandwidthFromExactData) {
  const double latency = 8e-6, bandwidth = 53.5e9;
  std::vector<double> sizes, times;
  for (double n = 4096; n <= 256.0 * 1024 * 1024; n *= 4) {
    sizes.push_back(n);
    times.push_back(latency + n / bandwidth);
  }
  const TransferFit fit = fit_transfer_time(sizes, times);
  EXPECT_NEAR(fit.latency_s, latency, 1e-12);
  EXPECT_NEAR(fit.bandwidth_Bps / bandwidth, 1.0, 1e-9);
  EXPECT_NEAR(fit.half_bandwidth_bytes(), latency * bandwidth, 1e-3);
  EXPECT_NEAR(fit.predicted_seconds(1e6), latency + 1e6 / bandwidth, 1e-15);
}

TEST(TransferFit, WeightsSmallCopiesSoLatencySurvivesNoise) {
  // 2% noise on the largest copies would swamp a microsecond latency in an unweighted fit.
  const double latency = 10e-6, bandwidth = 50e9;
  std::vector<double> sizes, times;
  int i = 0;
  for (double n = 4096; n <= 256.0 * 1024 * 1024; n *= 4, ++i) {
    sizes.push_back(n);
    times.push_back((latency + n / bandwidth) * (i % 2 == 0 ? 1.02 : 0.98));
  }
  const TransferFit fit = fit_transfer_time(sizes, times);
  EXPECT_NEAR(fit.latency_s, latency, 0.1 * latency);
  EXPECT_NEAR(fit.bandwidth_Bps / bandwidth, 1.0, 0.05);
}

TEST(TransferFit, RejectsDataItCannotFit) {
  EXPECT_THROW(fit_transfer_time({4096}, {1e-5}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 4096}, {1e-5, 2e-5}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 8192}, {1e-5, 0}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 8192}, {2e-5, 1e-5}), std::invalid_argument);
}

TEST(TransferFit, PinningBreakEven) {
  // Pinning costs 30 ms more than malloc; each transfer saves 4 ms: the 8th transfer repays it.
  EXPECT_DOUBLE_EQ(break_even_transfers(0.030, 0.005, 0.001), 8.0);
  EXPECT_DOUBLE_EQ(break_even_transfers(0.0, 0.005, 0.001), 0.0);
  EXPECT_TRUE(std::isinf(break_even_transfers(0.030, 0.001, 0.001)));
}
