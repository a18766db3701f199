// "did you mean": the closest of `candidates` to a mistyped word (edit distance at most 2, or a
// unique prefix), or "" when none is close.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

std::size_t edit_distance(const std::string& a, const std::string& b);
std::string closest_word(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace cudalab
