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
