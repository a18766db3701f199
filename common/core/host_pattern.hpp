// Deterministic byte patterns that prove a copy moved every byte to the right place: byte i of
// the pattern for `seed` depends on i and seed, so a shifted, truncated, stale or half-written
// buffer fails. Works eight bytes at a time, so checking 256 MiB takes tens of milliseconds.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudalab {

void fill_pattern(void* data, std::size_t bytes, std::uint32_t seed);

// How many of the `bytes` bytes at `data` hold the pattern for `seed`.
std::size_t count_pattern_matches(const void* data, std::size_t bytes, std::uint32_t seed);

// Writes the bitwise complement of the pattern: every byte differs from the pattern, so a byte a
// copy never wrote cannot pass count_pattern_matches by chance.
void poison_against_pattern(void* data, std::size_t bytes, std::uint32_t seed);

// The pattern's byte at position `index` (for element-wise CPU references).
std::uint8_t pattern_byte(std::size_t index, std::uint32_t seed);

// The same two jobs against an expected buffer computed once (a CPU reference): write the bitwise
// complement of `expected` to `data`, so no byte a run leaves unwritten can match; count the
// bytes of `data` equal to `expected`. Eight bytes at a time, like the pattern functions.
void poison_against(void* data, const void* expected, std::size_t bytes);
std::size_t count_matches(const void* data, const void* expected, std::size_t bytes);

}  // namespace cudalab
