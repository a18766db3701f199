// Text helpers shared by the renderers: terminal-aware width, UTF-8 display width (CJK counts
// two columns, so zh notes wrap correctly), wrapping, and number formats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab {

// Columns a UTF-8 string takes in a terminal (ANSI escape sequences count zero).
std::size_t display_width(std::string_view text);

// Greedy wrap to `width` columns; breaks at spaces and between CJK characters, never before
// closing punctuation (，。) nor between two characters that touch without a space ("foo," "GPU的"
// may break, "GPU," may not).
std::vector<std::string> wrap_text(std::string_view text, std::size_t width);

// A stretch of text with one style, for wrap_runs. `sgr` is an ANSI SGR code ("1" bold, "36" cyan,
// "" plain) painted around each piece of the run on the line it lands on. A keep_together run (a
// code span, an emphasised phrase) is not broken across lines unless it is wider than a line.
struct TextRun {
  std::string text;
  std::string sgr;
  bool keep_together = false;
};

// wrap_text over styled runs: runs that touch without a space stay on one line. A word wider
// than a whole line (a URL, a long identifier) is cut, as wrap_text cuts it.
std::vector<std::string> wrap_runs(const std::vector<TextRun>& runs, std::size_t width);

// Joins a source line onto a paragraph: with a space between words, without one where either side
// is CJK punctuation or both sides are CJK characters (Chinese text broken across source lines
// must not gain spaces). Markdown markers (* `) at the join are looked through.
void append_prose(std::string& paragraph, std::string_view line);
// Whether a line that starts with `after` joins one that ends with `before` without a space (the
// rule append_prose applies).
bool prose_joins_without_space(std::string_view before, std::string_view after);

// Pads with spaces on the right (left-aligned) or left (right-aligned) to `width` columns.
std::string pad_right(std::string_view text, std::size_t width);
std::string pad_left(std::string_view text, std::size_t width);

// `text` cut to at most `width` columns, ending in "…" when it was cut (one pass).
std::string truncate_to_width(std::string_view text, std::size_t width);

// `unit` n times ("─" for rules and boxes).
std::string repeat_text(std::string_view unit, std::size_t n);

// 4 significant-ish digits without exponent noise: 2.618, 53.51, 812.4, 0.0041.
std::string format_number(double value);
// 16,777,216
std::string format_count(std::uint64_t value);
// 4096 -> "4KiB", 1000003 -> "1000003B" (exact, the way --size accepts it back)
std::string format_bytes(std::uint64_t bytes);

// `text` with every control character (C0, DEL, C1: ANSI escapes, carriage returns, newlines)
// written out as a visible escape ("\x1b"), for text read from a file that reaches a terminal.
std::string printable(std::string_view text);
// A value typed by someone else, echoed in a one-line message: printable, and cut after
// `max_chars` characters with "…", so a 1 MB value cannot flood the line.
std::string printable_value(std::string_view text, std::size_t max_chars = 60);

// Terminal facts, read once.
bool stdout_is_terminal();
bool stdin_is_terminal();
// The terminal's width, or 80 when stdout is not a terminal.
std::size_t terminal_width();

}  // namespace cudalab
