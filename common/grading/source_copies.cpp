// Comments and whitespace set aside (source_copies.hpp).
#include "common/grading/source_copies.hpp"

namespace cudalab {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// The index just past the literal that opens at `at` with `quote` (" or '), its escapes honoured;
// the text's end when it is not closed.
std::size_t literal_end(std::string_view s, std::size_t at, char quote) {
  std::size_t i = at + 1;
  while (i < s.size() && s[i] != quote && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
  return i < s.size() && s[i] == quote ? i + 1 : std::min(i, s.size());
}

}  // namespace

std::string stripped_source(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && next == '*') {
      const std::size_t close = s.find("*/", i + 2);
      i = close == std::string_view::npos ? s.size() : close + 2;
    } else if (c == '"' || c == '\'') {
      const std::size_t end = literal_end(s, i, c);
      out.append(s.substr(i, end - i));
      i = end;
    } else {
      if (!is_space(c)) out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace cudalab
