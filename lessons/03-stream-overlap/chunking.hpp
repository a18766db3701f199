// Splitting a buffer into nearly equal chunks for multi-stream pipelines. Sizes need not divide
// evenly: the first (total % parts) chunks carry one extra element, so nothing is dropped and
// no two chunks differ by more than one element.
#pragma once

#include <cstddef>
#include <vector>

namespace cudalab {

struct Chunk {
  std::size_t offset = 0;  // first element
  std::size_t count = 0;   // elements
};

// Throws std::invalid_argument when parts < 1 or parts > total (a chunk would be empty).
std::vector<Chunk> split_into_chunks(std::size_t total, int parts);

}  // namespace cudalab
