#include "workload.hpp"

#include <stdexcept>

namespace cudalab::unified_memory {

std::vector<WordRange> split_words(std::size_t words, int parts, std::size_t granule) {
  const std::size_t granules = granule == 0 ? 0 : words / granule;
  if (parts < 1 || granules < static_cast<std::size_t>(parts)) {
    throw std::invalid_argument("split_words: fewer granules than parts");
  }
  const auto n = static_cast<std::size_t>(parts);
  std::vector<WordRange> ranges(n);
  for (std::size_t c = 0; c < n; ++c) {
    ranges[c].begin = c * granules / n * granule;
    ranges[c].end = c + 1 == n ? words : (c + 1) * granules / n * granule;
  }
  return ranges;
}

std::vector<int> reuse_sweep(int largest) {
  std::vector<int> out;
  for (int k = 1; k < largest; k *= 2) out.push_back(k);
  if (largest >= 1) out.push_back(largest);
  return out;
}

std::size_t sparse_reads(std::size_t words, int sparse) {
  return sparse < 1 ? 0 : words / kLineWords / static_cast<std::size_t>(sparse);
}

void reference_reuse(const Word* in, std::size_t n, int reuse, Word* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = 0;
  const std::size_t step = reuse_step(n, reuse);
  for (int k = 0; k < reuse; ++k) {
    const std::size_t shift = n == 0 ? 0 : (static_cast<std::size_t>(k) * step) % n;
    // Two straight passes instead of a modulo per element: the compiler vectorises them.
    for (std::size_t i = 0; i + shift < n; ++i) out[i] += in[i + shift];
    for (std::size_t i = n - shift; i < n; ++i) out[i] += in[i + shift - n];
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = finish(out[i]);
}

std::vector<Word> reference_sparse(const Word* in, std::size_t words, int sparse) {
  const std::size_t reads = sparse_reads(words, sparse);
  std::vector<Word> out(reads * kLineWords);
  for (std::size_t r = 0; r < reads; ++r) {
    const std::size_t line = sparse_line(r, sparse);
    for (std::size_t w = 0; w < kLineWords; ++w) out[r * kLineWords + w] = finish(in[line * kLineWords + w]);
  }
  return out;
}

}  // namespace cudalab::unified_memory
