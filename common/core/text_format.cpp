#include "common/core/text_format.hpp"

#include <cstdlib>

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

bool is_cjk_punctuation(char32_t cp) {
  return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
         (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65);
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

namespace {

// Steps over an ANSI CSI sequence (ESC [ ... letter) at text[i], which takes no column.
bool skip_escape(std::string_view text, std::size_t& i) {
  if (text[i] != '\x1b') return false;
  ++i;
  if (i < text.size() && text[i] == '[') {
    ++i;
    while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
    ++i;
  }
  return true;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (skip_escape(text, i)) continue;
    const char32_t cp = next_code_point(text, i);
    width += is_wide(cp) ? 2 : 1;
  }
  return width;
}

namespace {

// One unbreakable piece of a line: a word, one wide character, or a whole keep_together run.
struct Piece {
  std::string text;
  const std::string* sgr;
  bool space_before;
  char32_t first;
  char32_t last;
};

// Splits a run into pieces at spaces and around wide characters; `space` carries a pending space
// from the run before.
void split_run(const TextRun& run, bool& space, std::vector<Piece>& out) {
  const std::string_view text = run.text;
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
    const std::string_view word = text.substr(start, i - start);
    out.push_back({std::string(word), &run.sgr, space, cp, last_code_point(word)});
    space = false;
  }
}

bool is_ascii_closing(char32_t cp) {
  return cp == ')' || cp == ']' || cp == '}' || cp == ',' || cp == '.' || cp == ';' || cp == ':' || cp == '!' ||
         cp == '?';
}

// Punctuation that must not end a line: it moves with the character after it. ASCII brackets
// count too: the zh help writes "[默认：4]", and a "[" left at a line's end reads as a stray mark.
bool is_opening_punctuation(char32_t cp) {
  return cp == U'（' || cp == U'「' || cp == U'『' || cp == U'【' || cp == U'《' || cp == U'“' || cp == U'‘' ||
         cp == '(' || cp == '[' || cp == '{';
}

// Whether a line may end between two pieces.
bool may_break_between(const Piece& before, const Piece& after) {
  if (after.space_before) return true;
  if (is_closing_punctuation(after.first) || is_ascii_closing(after.first) || is_opening_punctuation(before.last)) {
    return false;
  }
  return is_wide(before.last) || is_wide(after.first);
}

// Pieces no line may end between, with whether a line may end before them without cutting a
// Chinese word in two: at a space, at punctuation, or where Chinese meets other text, but not
// between two Chinese characters (a word may span them: 硬件).
struct Unit {
  std::size_t begin = 0, end = 0;  // pieces [begin, end)
  std::size_t width = 0;
  bool space_before = false;
  bool word_boundary = true;
};

bool is_han(char32_t cp) { return is_wide(cp) && !is_cjk_punctuation(cp); }

std::vector<Unit> units_of(const std::vector<Piece>& pieces) {
  std::vector<Unit> units;
  for (std::size_t i = 0; i < pieces.size();) {
    Unit u{i, i + 1, display_width(pieces[i].text), pieces[i].space_before, true};
    if (i > 0 && !u.space_before) u.word_boundary = !(is_han(pieces[i - 1].last) && is_han(pieces[i].first));
    while (u.end < pieces.size() && !may_break_between(pieces[u.end - 1], pieces[u.end])) {
      u.width += display_width(pieces[u.end++].text);
    }
    units.push_back(u);
    i = u.end;
  }
  return units;
}

std::size_t width_of(const std::vector<Unit>& line) {
  std::size_t w = 0;
  for (std::size_t u = 0; u < line.size(); ++u) w += line[u].width + (u > 0 && line[u].space_before ? 1 : 0);
  return w;
}

// Units placed greedily into lines of `width`. Where the next unit does not fit and the line
// would end inside a Chinese word, the line ends instead at its last word boundary, and what
// follows moves down; only a line with no such boundary at all ends between two characters.
// Each line's width is kept as it grows: a megabyte of prose is placed in one pass.
std::vector<std::vector<Unit>> place_units(const std::vector<Unit>& units, std::size_t width) {
  std::vector<std::vector<Unit>> lines(1);
  std::size_t used = 0;
  for (const Unit& u : units) {
    auto& line = lines.back();
    const std::size_t gap = !line.empty() && u.space_before ? 1 : 0;
    if (line.empty() || used + gap + u.width <= width) {
      line.push_back(u);
      used += gap + u.width;
      continue;
    }
    std::size_t keep = line.size();
    if (!u.word_boundary) {
      while (keep > 1 && !line[keep - 1].word_boundary) --keep;
      keep = keep > 1 ? keep - 1 : line.size();  // end before the unit that starts the word
    }
    std::vector<Unit> moved(line.begin() + static_cast<std::ptrdiff_t>(keep), line.end());
    line.resize(keep);
    moved.push_back(u);
    if (width_of(moved) > width) {  // a word longer than a line: it breaks where it must
      lines.emplace_back(moved.begin(), moved.end() - 1);
      moved = {u};
    }
    used = width_of(moved);
    lines.push_back(std::move(moved));
  }
  return lines;
}

// Appends the piece, in its colour when it has one (no temporary string: a megabyte of prose is
// hundreds of thousands of pieces).
void append_painted(std::string& line, const Piece& piece) {
  if (piece.sgr->empty()) {
    line += piece.text;
    return;
  }
  line.append("\x1b[").append(*piece.sgr).append("m").append(piece.text).append("\x1b[0m");
}

// A line wider than `width` (a word longer than the whole line: a long identifier, a URL) cut
// into pieces that fit, in one pass, so the text never runs past the terminal's edge. A character
// wider than the line on its own stays whole; a colour's escape sequence is never cut.
void cut_to_width(const std::string& line, std::size_t width, std::vector<std::string>& out) {
  if (width == 0 || display_width(line) <= width) {
    out.push_back(line);
    return;
  }
  std::size_t start = 0, used = 0, i = 0;
  while (i < line.size()) {
    if (skip_escape(line, i)) continue;
    std::size_t next = i;
    const std::size_t w = is_wide(next_code_point(line, next)) ? 2 : 1;
    if (used + w > width && i > start) {
      out.push_back(line.substr(start, i - start));
      start = i;
      used = 0;
    }
    used += w;
    i = next;
  }
  out.push_back(line.substr(start));
}

}  // namespace

std::vector<std::string> wrap_runs(const std::vector<TextRun>& runs, std::size_t width) {
  std::vector<Piece> pieces;
  std::size_t bytes = 0;
  for (const auto& run : runs) bytes += run.text.size();
  pieces.reserve(bytes / 4 + runs.size());  // about one piece per word
  bool space = false;
  for (const auto& run : runs) {
    const std::size_t leading = run.text.find_first_not_of(' ');
    if (run.keep_together && leading != std::string::npos && display_width(run.text) <= width) {
      const std::string_view body = std::string_view(run.text).substr(leading);
      const std::size_t end = body.find_last_not_of(' ') + 1;
      pieces.push_back({std::string(body.substr(0, end)), &run.sgr, space || leading > 0, first_code_point(body),
                        last_code_point(body.substr(0, end))});
      space = end < body.size();
    } else {
      split_run(run, space, pieces);
    }
  }
  std::vector<std::string> lines;
  for (const auto& units : place_units(units_of(pieces), width)) {
    std::string line;
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (u > 0 && units[u].space_before) line += ' ';
      for (std::size_t k = units[u].begin; k < units[u].end; ++k) append_painted(line, pieces[k]);
    }
    lines.push_back(std::move(line));
  }
  std::vector<std::string> fitted;
  fitted.reserve(lines.size());
  for (auto& l : lines) cut_to_width(l, width, fitted);
  return fitted;
}

namespace {

}  // namespace

std::vector<std::string> wrap_text(std::string_view text, std::size_t width) {
  return wrap_runs({TextRun{std::string(text), "", false}}, width);
}

namespace {

std::string_view without_markers(std::string_view text) {
  while (!text.empty() && (text.front() == '*' || text.front() == '`')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == '*' || text.back() == '`')) text.remove_suffix(1);
  return text;
}

}  // namespace

bool prose_joins_without_space(std::string_view before, std::string_view after) {
  const char32_t last = last_code_point(without_markers(before));
  const char32_t first = first_code_point(without_markers(after));
  return (is_wide(last) && is_wide(first)) || is_cjk_punctuation(last) || is_cjk_punctuation(first);
}

void append_prose(std::string& paragraph, std::string_view line) {
  if (!paragraph.empty() && !line.empty() && !prose_joins_without_space(paragraph, line)) paragraph += ' ';
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

std::string truncate_to_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width) return std::string(text);
  std::size_t used = 0, end = 0;
  while (end < text.size()) {  // the longest prefix that leaves a column for the ellipsis
    std::size_t next = end;
    const std::size_t w = is_wide(next_code_point(text, next)) ? 2 : 1;
    if (used + w + 1 > width) break;
    used += w;
    end = next;
  }
  return std::string(text.substr(0, end)) + "…";
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
  // COLUMNS first, as every Unix tool does: it lets a script or an instructor pick the width.
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != nullptr && *end == '\0' && value >= 20 && value <= 1000) return static_cast<std::size_t>(value);
  }
  if (!stdout_is_terminal()) return 80;
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 80;
}

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (1 to 4), or 0 when the bytes there are
// not one (a stray continuation byte, a truncated or overlong sequence, a surrogate, > U+10FFFF).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto at = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  const unsigned lead = at(0);
  if (lead < 0x80) return 1;
  const auto tail = [&](std::size_t k) { return (at(k) & 0xC0u) == 0x80u; };
  if (lead >= 0xC2 && lead <= 0xDF) return tail(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
    return at(1) >= low && at(1) <= high && tail(2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
    return at(1) >= low && at(1) <= high && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0 || byte < 0x20 || byte == 0x7f) {  // a control character, or a byte that is no character
      out += fmt::format("\\x{:02x}", byte);
      ++i;
    } else if (byte == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {  // U+0080..U+009F
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

std::string printable_value(std::string_view text, std::size_t max_chars) {
  // Cut on a character boundary first (a UTF-8 lead byte is not 10xxxxxx), then escape.
  std::size_t chars = 0, end = 0;
  while (end < text.size()) {
    std::size_t next = end + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (++chars > max_chars) break;
    end = next;
  }
  std::string out = printable(text.substr(0, end));
  if (end < text.size()) out += "…";
  return out;
}

}  // namespace cudalab
