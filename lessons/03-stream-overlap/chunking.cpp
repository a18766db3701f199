#include "chunking.hpp"

#include <stdexcept>

namespace cudalab {

std::vector<Chunk> split_into_chunks(std::size_t total, int parts) {
  if (parts < 1) throw std::invalid_argument("split_into_chunks needs at least one part");
  const auto n = static_cast<std::size_t>(parts);
  if (n > total) throw std::invalid_argument("split_into_chunks: more parts than elements");
  const std::size_t base = total / n;
  const std::size_t longer = total % n;
  std::vector<Chunk> chunks(n);
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    chunks[i].offset = offset;
    chunks[i].count = base + (i < longer ? 1 : 0);
    offset += chunks[i].count;
  }
  return chunks;
}

}  // namespace cudalab
