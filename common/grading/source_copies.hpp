// Exercise sources that are one source: the same as a classmate's, or as the solution the lab
// ships, once comments and whitespace are set aside (the changes that copying costs nothing). A
// plain scan over the text, bounded by the source's own limit (exercise/source_check.hpp): no
// regex, no recursion. What it cannot tell: a copy with its names changed or its lines reordered,
// which is what a person reading the two files is for.
#pragma once

#include <string>
#include <string_view>

namespace cudalab {

// `source` with its comments (// and /* */) and every whitespace character removed, string and
// character literals kept as written: two files that differ only there give the same text.
std::string stripped_source(std::string_view source);

}  // namespace cudalab
