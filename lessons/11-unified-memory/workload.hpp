// Lesson 11's workload as the host sees it: the input's words, what the kernels compute from
// them, which lines the sparse read picks, and the CPU reference every run is checked against.
// Pure (the kernels call the same inline functions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/core/host_device.hpp"

namespace cudalab::unified_memory {

using Word = std::uint32_t;

inline constexpr std::size_t kLineWords = 32;  // one 128-byte line: one warp reads it in one transaction

// Input word i: a hash of i, so a shifted, stale or half-copied buffer fails the check.
CUDALAB_HOST_DEVICE inline Word input_word(std::size_t i) {
  // The high half is multiplied before it is folded in: a plain xor made index 5 and 5 << 32 equal.
  auto x = static_cast<Word>(i) ^ (static_cast<Word>(i >> 32) * 0x85ebca6bu);
  x = (x ^ (x >> 16)) * 0x7feb352du;
  x = (x ^ (x >> 15)) * 0x846ca68bu;
  return x ^ (x >> 16);
}

// Output word from the sum of the words it read.
CUDALAB_HOST_DEVICE inline Word finish(Word sum) { return sum * 2654435761u + 0x9e3779b9u; }

// With reuse K, output i sums input (i + k * step) mod n for k < K: each input word is read
// exactly K times, by K threads far apart in the grid (a step of n/K words), so a re-read finds
// its line long gone from the caches rather than next door.
CUDALAB_HOST_DEVICE inline std::size_t reuse_step(std::size_t n, int reuse) {
  return reuse <= 1 ? 0 : n / static_cast<std::size_t>(reuse);
}

// The sparse read's r-th line: one line in every `sparse`, at a place within its group that a
// hash picks, as a lookup table's keys would. Which lines are needed is known only by reading.
CUDALAB_HOST_DEVICE inline std::size_t sparse_line(std::size_t r, int sparse) {
  const auto group = static_cast<std::size_t>(sparse);
  return r * group + input_word(r) % group;
}

// A run of words [begin, end): one chunk of the pipelined ways.
struct WordRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t count() const { return end - begin; }
};

// `words` split into `parts` nearly equal ranges whose edges fall on multiples of `granule` words,
// so no two ranges share a page (the last one also takes what does not fill a granule). Throws
// std::invalid_argument when parts < 1 or there are fewer granules than parts.
std::vector<WordRange> split_words(std::size_t words, int parts, std::size_t granule);

// The reuses the zero-copy sweep measures: 1, 2, 4, ... up to `largest`, and `largest` itself.
std::vector<int> reuse_sweep(int largest);

// Lines the sparse read takes from a buffer of `words`: one in every `sparse`.
std::size_t sparse_reads(std::size_t words, int sparse);

// The CPU reference: out[i] for reuse K over the n words at `in` (the K reads of each output
// are summed pass by pass, so it takes a few milliseconds per pass over 64 MiB).
void reference_reuse(const Word* in, std::size_t n, int reuse, Word* out);
// The sparse read's expected output: kLineWords words per line read.
std::vector<Word> reference_sparse(const Word* in, std::size_t words, int sparse);

}  // namespace cudalab::unified_memory
