#include "common/core/host_pattern.hpp"

#include <cstring>

namespace cudalab {

namespace {

// splitmix64's finalizer: every input bit moves every output bit.
std::uint64_t pattern_word(std::size_t word_index, std::uint32_t seed) {
  std::uint64_t z = static_cast<std::uint64_t>(word_index) + (static_cast<std::uint64_t>(seed) << 40) +
                    0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::uint8_t pattern_byte(std::size_t index, std::uint32_t seed) {
  const std::uint64_t word = pattern_word(index / 8, seed);
  return static_cast<std::uint8_t>(word >> (8 * (index % 8)));
}

void fill_pattern(void* data, std::size_t bytes, std::uint32_t seed) {
  auto* out = static_cast<unsigned char*>(data);
  const std::size_t words = bytes / 8;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t value = pattern_word(w, seed);
    std::memcpy(out + 8 * w, &value, 8);  // memcpy: `data` need not be 8-byte aligned
  }
  for (std::size_t i = words * 8; i < bytes; ++i) out[i] = pattern_byte(i, seed);
}

void poison_against_pattern(void* data, std::size_t bytes, std::uint32_t seed) {
  auto* out = static_cast<unsigned char*>(data);
  const std::size_t words = bytes / 8;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t value = ~pattern_word(w, seed);
    std::memcpy(out + 8 * w, &value, 8);
  }
  for (std::size_t i = words * 8; i < bytes; ++i) out[i] = static_cast<unsigned char>(~pattern_byte(i, seed));
}

std::size_t count_pattern_matches(const void* data, std::size_t bytes, std::uint32_t seed) {
  const auto* in = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 8;
  std::size_t matches = 0;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t expected = pattern_word(w, seed);
    std::uint64_t actual = 0;
    std::memcpy(&actual, in + 8 * w, 8);
    if (actual == expected) {
      matches += 8;
      continue;
    }
    for (int b = 0; b < 8; ++b) {
      if (static_cast<std::uint8_t>(actual >> (8 * b)) == static_cast<std::uint8_t>(expected >> (8 * b))) ++matches;
    }
  }
  for (std::size_t i = words * 8; i < bytes; ++i) {
    if (in[i] == pattern_byte(i, seed)) ++matches;
  }
  return matches;
}

void poison_against(void* data, const void* expected, std::size_t bytes) {
  auto* out = static_cast<unsigned char*>(data);
  const auto* want = static_cast<const unsigned char*>(expected);
  const std::size_t words = bytes / 8;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t value = 0;
    std::memcpy(&value, want + 8 * w, 8);
    value = ~value;
    std::memcpy(out + 8 * w, &value, 8);
  }
  for (std::size_t i = words * 8; i < bytes; ++i) out[i] = static_cast<unsigned char>(~want[i]);
}

std::size_t count_matches(const void* data, const void* expected, std::size_t bytes) {
  const auto* in = static_cast<const unsigned char*>(data);
  const auto* want = static_cast<const unsigned char*>(expected);
  const std::size_t words = bytes / 8;
  std::size_t matches = 0;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t actual = 0, wanted = 0;
    std::memcpy(&actual, in + 8 * w, 8);
    std::memcpy(&wanted, want + 8 * w, 8);
    if (actual == wanted) {
      matches += 8;
      continue;
    }
    for (std::size_t b = 0; b < 8; ++b) matches += in[8 * w + b] == want[8 * w + b] ? 1 : 0;
  }
  for (std::size_t i = words * 8; i < bytes; ++i) matches += in[i] == want[i] ? 1 : 0;
  return matches;
}

}  // namespace cudalab
