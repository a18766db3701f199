#include "text_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace cudalab {

namespace {

// Decodes one UTF-8 code point at text[i]; advances i. Invalid bytes count as one column.
char32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0;
  char32_t cp = extra == 3 ? (byte & 0x07) : extra == 2 ? (byte & 0x0F) : extra == 1 ? (byte & 0x1F) : byte;
  ++i;
  while (extra-- > 0 && i < text.size()) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
    ++i;
  }
  return cp;
}

bool is_wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
         (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

// CJK punctuation that must not start a line (kinsoku): it moves with the character before it.
bool is_closing_punctuation(char32_t cp) {
  switch (cp) {
    case U'，': case U'。': case U'、': case U'；': case U'：': case U'！': case U'？':
    case U'）': case U'」': case U'』': case U'】': case U'》':
      return true;
    default:
      return false;
  }
}

char32_t first_code_point(std::string_view text) {
  std::size_t i = 0;
  return text.empty() ? 0 : next_code_point(text, i);
}

char32_t last_code_point(std::string_view text) {
  std::size_t start = text.size();
  while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80) --start;
  if (start > 0) --start;
  return first_code_point(text.substr(start));
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\x1b') {  // skip an ANSI CSI sequence: ESC [ ... letter
      ++i;
      if (i < text.size() && text[i] == '[') {
        ++i;
        while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
        ++i;
      }
      continue;
    }
    const char32_t cp = next_code_point(text, i);
    width += is_wide(cp) ? 2 : 1;
  }
  return width;
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width) {
  // Tokens: a run of narrow non-space characters (a word) or one wide character. A line is a
  // list of tokens, each remembering whether a space preceded it.
  struct Token {
    std::string text;
    bool space_before;
  };
  std::vector<std::string> lines;
  std::vector<Token> line;
  std::size_t line_width = 0;
  auto token_width = [](const Token& t, bool first) { return display_width(t.text) + (!first && t.space_before ? 1 : 0); };
  auto flush = [&] {
    std::string out;
    for (std::size_t k = 0; k < line.size(); ++k) out += (k > 0 && line[k].space_before ? " " : "") + line[k].text;
    lines.push_back(out);
    line.clear();
    line_width = 0;
  };
  bool space = false;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      space = true;
      ++i;
      continue;
    }
    const std::size_t start = i;
    const char32_t cp = next_code_point(text, i);
    if (!is_wide(cp)) {
      while (i < text.size() && text[i] != ' ') {
        std::size_t peek = i;
        if (is_wide(next_code_point(text, peek))) break;
        i = peek;
      }
    }
    Token token{std::string(text.substr(start, i - start)), space};
    space = false;
    if (!line.empty() && line_width + token_width(token, false) > width) {
      // Closing punctuation may not start a line: carry the last character down with it.
      std::vector<Token> carried;
      if (is_closing_punctuation(cp) && line.size() > 1) {
        carried.push_back(line.back());
        line.pop_back();
      }
      flush();
      for (auto& c : carried) {
        line_width += token_width(c, line.empty());
        line.push_back(std::move(c));
      }
    }
    line_width += token_width(token, line.empty());
    line.push_back(std::move(token));
  }
  if (!line.empty() || lines.empty()) flush();
  return lines;
}

void append_prose(std::string& paragraph, std::string_view line) {
  if (!paragraph.empty() && !(is_wide(last_code_point(paragraph)) && is_wide(first_code_point(line)))) {
    paragraph += ' ';
  }
  paragraph += line;
}

std::string pad_right(std::string_view text, std::size_t width) {
  const std::size_t w = display_width(text);
  return std::string(text) + std::string(w < width ? width - w : 0, ' ');
}

std::string pad_left(std::string_view text, std::size_t width) {
  const std::size_t w = display_width(text);
  return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

std::string repeat_text(std::string_view unit, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  const double a = std::fabs(value);
  if (a == 0) return "0";
  if (a >= 1000) return fmt::format("{:.0f}", value);
  if (a >= 100) return fmt::format("{:.1f}", value);
  if (a >= 10) return fmt::format("{:.2f}", value);
  if (a >= 0.01) return fmt::format("{:.3f}", value);
  return fmt::format("{:.3g}", value);
}

std::string format_count(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }
bool stdin_is_terminal() { return isatty(STDIN_FILENO) == 1; }

std::size_t terminal_width() {
  if (!stdout_is_terminal()) return 80;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 80;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else if (byte == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F in UTF-8
      out += fmt::format("\\u{:04x}", next);
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace cudalab
