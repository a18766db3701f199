// The byte pattern lessons fill host buffers with, and count back after a copy.
#include <gtest/gtest.h>

#include <vector>

#include "common/core/host_pattern.hpp"

using namespace cudalab;

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

TEST(HostPattern, AgainstAnExpectedBufferPoisonDiffersEverywhereAndCountsFindEachWrongByte) {
  std::vector<unsigned char> expected(1000 + 5), data(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<unsigned char>(i * 37 + 11);
  poison_against(data.data(), expected.data(), data.size());
  for (std::size_t i = 0; i < data.size(); ++i) ASSERT_NE(data[i], expected[i]) << i;
  EXPECT_EQ(count_matches(data.data(), expected.data(), data.size()), 0u);
  data = expected;
  EXPECT_EQ(count_matches(data.data(), expected.data(), data.size()), data.size());
  data[3] ^= 0x10;                 // inside a whole word
  data[data.size() - 1] ^= 0x01;   // in the tail after the last whole word
  EXPECT_EQ(count_matches(data.data(), expected.data(), data.size()), data.size() - 2);
  // Unaligned starts on both sides.
  EXPECT_EQ(count_matches(data.data() + 5, expected.data() + 5, 100), 100u);
  poison_against(data.data() + 1, expected.data() + 1, 20);
  EXPECT_EQ(count_matches(data.data() + 1, expected.data() + 1, 20), 0u);
}
