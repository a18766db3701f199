#include "common/report/markdown.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace cudalab {

namespace {

constexpr const char* kCodeSgr = "36";
constexpr const char* kStrongSgr = "1";
constexpr const char* kEmphasisSgr = "3";
// A table column is not squeezed below this many columns to fit the width.
constexpr std::size_t kMinColumnWidth = 8;

std::string combine_sgr(const std::string& outer, const char* inner) {
  return outer.empty() ? std::string(inner) : outer + ";" + inner;
}

std::size_t run_length(std::string_view text, std::size_t i, char c) {
  std::size_t n = 0;
  while (i + n < text.size() && text[i + n] == c) ++n;
  return n;
}

// Where the code span opened by `ticks` backticks at `open` closes (a run of exactly as many).
std::optional<std::size_t> code_span_end(std::string_view text, std::size_t open, std::size_t ticks) {
  std::size_t i = open + ticks;
  while ((i = text.find('`', i)) != std::string_view::npos) {
    const std::size_t n = run_length(text, i, '`');
    if (n == ticks) return i;
    i += n;
  }
  return std::nullopt;
}

// Where the emphasis opened by `stars` (1 or 2) at `open` closes: the same delimiter right after
// a non-space, outside code spans. A lone "*" between spaces (a product) opens nothing.
std::optional<std::size_t> emphasis_end(std::string_view text, std::size_t open, std::size_t stars) {
  std::size_t i = open + stars;
  if (i >= text.size() || text[i] == ' ') return std::nullopt;
  while (i < text.size()) {
    if (text[i] == '`') {
      const std::size_t n = run_length(text, i, '`');
      const auto end = code_span_end(text, i, n);
      i = end ? *end + n : i + n;
      continue;
    }
    if (text[i] == '*') {
      const std::size_t n = run_length(text, i, '*');
      if (n == stars && i > open + stars && text[i - 1] != ' ') return i;
      i += n;
      continue;
    }
    ++i;
  }
  return std::nullopt;
}

void parse_inline(std::string_view text, const std::string& sgr, bool keep_together, bool color,
                  std::vector<TextRun>& out) {
  std::string plain;
  auto flush = [&] {
    if (!plain.empty()) out.push_back({plain, sgr, keep_together});
    plain.clear();
  };
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && std::ispunct(static_cast<unsigned char>(text[i + 1]))) {
      plain += text[i + 1];
      i += 2;
    } else if (c == '`') {
      const std::size_t ticks = run_length(text, i, '`');
      const auto end = code_span_end(text, i, ticks);
      if (!end) {
        plain.append(text.substr(i, ticks));
        i += ticks;
        continue;
      }
      std::string_view code = text.substr(i + ticks, *end - i - ticks);
      if (code.size() >= 2 && code.front() == ' ' && code.back() == ' ') code = code.substr(1, code.size() - 2);
      flush();
      out.push_back({std::string(code), color ? combine_sgr(sgr, kCodeSgr) : sgr, true});
      i = *end + ticks;
    } else if (c == '*') {
      const std::size_t stars = std::min<std::size_t>(run_length(text, i, '*'), 2);
      const auto end = emphasis_end(text, i, stars);
      if (!end) {
        plain.append(text.substr(i, stars));
        i += stars;
        continue;
      }
      flush();
      const char* style = stars == 2 ? kStrongSgr : kEmphasisSgr;
      parse_inline(text.substr(i + stars, *end - i - stars), color ? combine_sgr(sgr, style) : sgr, true, color, out);
      i = *end + stars;
    } else {
      plain += c;
      ++i;
    }
  }
  flush();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "- item", "* item" and "12. item": the marker as printed ("• " or "12. ") and the item's text.
struct ListItem {
  std::size_t level;
  std::string marker;
  std::string_view text;
};

std::optional<ListItem> list_item(std::string_view line) {
  const std::size_t indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos || indent >= 4) return std::nullopt;
  const std::string_view rest = line.substr(indent);
  if (rest.size() > 2 && (rest[0] == '-' || rest[0] == '*') && rest[1] == ' ') {
    return ListItem{indent / 2, "• ", trim(rest.substr(2))};
  }
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits > 0 && digits < rest.size() - 2 && rest[digits] == '.' && rest[digits + 1] == ' ') {
    return ListItem{indent / 2, std::string(rest.substr(0, digits + 2)), trim(rest.substr(digits + 2))};
  }
  return std::nullopt;
}

// A pipe table's cells: "| a | `b|c` | d |" -> a, `b|c`, d. Pipes inside code spans or escaped
// ("\|") are text.
std::vector<std::string> table_cells(std::string_view line) {
  line = trim(line);
  if (!line.empty() && line.front() == '|') line.remove_prefix(1);
  if (!line.empty() && line.back() == '|' && (line.size() < 2 || line[line.size() - 2] != '\\')) line.remove_suffix(1);
  std::vector<std::string> cells(1);
  bool in_code = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cells.back() += '|';
      ++i;
      continue;
    }
    if (line[i] == '`') in_code = !in_code;
    if (line[i] == '|' && !in_code) {
      cells.emplace_back();
      continue;
    }
    cells.back() += line[i];
  }
  for (auto& cell : cells) cell = std::string(trim(cell));
  return cells;
}

bool is_separator_row(const std::vector<std::string>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const std::string& c) {
    return !c.empty() && c.find_first_not_of(":-") == std::string::npos && c.find('-') != std::string::npos;
  });
}

std::size_t runs_width(const std::vector<TextRun>& runs) {
  return display_width(wrap_runs(runs, static_cast<std::size_t>(-1)).front());
}

class TableRenderer {
 public:
  TableRenderer(const std::vector<std::string>& source, const MarkdownStyle& style) : style_(style) {
    for (const auto& line : source) rows_.push_back(table_cells(line));
    if (rows_.size() >= 2 && is_separator_row(rows_[1])) {
      for (const auto& spec : rows_[1]) right_.push_back(spec.size() > 1 && spec.back() == ':' && spec.front() != ':');
      rows_.erase(rows_.begin() + 1);
      header_ = true;
    }
    for (const auto& row : rows_) columns_ = std::max(columns_, row.size());
    right_.resize(columns_, false);
  }

  std::vector<std::string> lines() {
    std::vector<std::vector<std::vector<TextRun>>> cells;
    std::vector<std::size_t> widths(columns_, 0);
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      cells.emplace_back();
      for (std::size_t c = 0; c < columns_; ++c) {
        auto runs = inline_markdown(c < rows_[r].size() ? rows_[r][c] : "", style_.color);
        if (r == 0 && header_ && style_.color) {
          for (auto& run : runs) run.sgr = combine_sgr(run.sgr, kStrongSgr);
        }
        widths[c] = std::max(widths[c], runs_width(runs));
        cells.back().push_back(std::move(runs));
      }
    }
    fit(widths);
    std::vector<std::string> out;
    for (std::size_t r = 0; r < cells.size(); ++r) {
      row_lines(cells[r], widths, out);
      if (r == 0 && header_) {
        std::string rule;
        for (std::size_t c = 0; c < columns_; ++c) {
          rule += (c == 0 ? "" : "  ") + repeat_text(style_.unicode ? "─" : "-", widths[c]);
        }
        out.push_back(rule);
      }
    }
    return out;
  }

 private:
  // Narrows the widest columns until the table fits the width (or every column is at its minimum).
  void fit(std::vector<std::size_t>& widths) const {
    auto total = [&] {
      std::size_t sum = 2 * (widths.size() - 1);
      for (auto w : widths) sum += w;
      return sum;
    };
    while (total() > style_.width) {
      auto widest = std::max_element(widths.begin(), widths.end());
      if (*widest <= kMinColumnWidth) break;
      --*widest;
    }
  }

  void row_lines(const std::vector<std::vector<TextRun>>& row, const std::vector<std::size_t>& widths,
                 std::vector<std::string>& out) const {
    std::vector<std::vector<std::string>> wrapped;
    std::size_t height = 1;
    for (std::size_t c = 0; c < columns_; ++c) {
      wrapped.push_back(wrap_runs(row[c], widths[c]));
      height = std::max(height, wrapped.back().size());
    }
    for (std::size_t k = 0; k < height; ++k) {
      std::string line;
      for (std::size_t c = 0; c < columns_; ++c) {
        const std::string text = k < wrapped[c].size() ? wrapped[c][k] : "";
        line += (c == 0 ? "" : "  ") + (right_[c] ? pad_left(text, widths[c]) : pad_right(text, widths[c]));
      }
      line.erase(line.find_last_not_of(' ') + 1);
      out.push_back(line);
    }
  }

  const MarkdownStyle& style_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
  std::size_t columns_ = 0;
  bool header_ = false;
};

class BlockRenderer {
 public:
  explicit BlockRenderer(const MarkdownStyle& style) : style_(style) {}

  std::vector<std::string> render(std::string_view text) {
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      line(text.substr(start, end - start));
      start = end + 1;
    }
    flush();
    return std::move(out_);
  }

 private:
  void line(std::string_view raw) {
    const bool is_table_row = !fenced_ && !trim(raw).empty() && trim(raw).front() == '|';
    if (!is_table_row && !table_.empty()) flush_table();
    if (raw.substr(0, 3) == "```") {
      flush();
      fenced_ = !fenced_;
      return;
    }
    if (fenced_ || raw.substr(0, 4) == "    ") {
      flush();
      out_.emplace_back(raw);
      return;
    }
    const std::string_view text = trim(raw);
    if (text.empty()) {
      flush();
      item_.reset();
      out_.emplace_back();
      return;
    }
    if (is_table_row) {
      flush_paragraph();
      table_.emplace_back(text);
      return;
    }
    if (text.front() == '#') {
      flush();
      item_.reset();
      auto runs = inline_markdown(trim(text.substr(text.find_first_not_of('#'))), style_.color);
      for (auto& run : runs) {
        if (style_.color) run.sgr = combine_sgr(run.sgr, kStrongSgr);
        run.keep_together = true;
      }
      for (auto& l : wrap_runs(runs, style_.width)) out_.push_back(std::move(l));
      return;
    }
    if (auto item = list_item(raw)) {
      flush();
      paragraph_ = std::string(item->text);
      item_ = item;
      item_->text = {};
      return;
    }
    append_prose(paragraph_, text);
  }

  void flush() {
    if (!table_.empty()) flush_table();
    flush_paragraph();
  }

  void flush_paragraph() {
    if (paragraph_.empty()) return;
    const std::size_t indent = item_ ? 2 * item_->level : 0;
    const std::string marker = item_ ? item_->marker : "";
    const std::size_t hang = indent + display_width(marker);
    const std::size_t width = style_.width > hang + 10 ? style_.width - hang : 10;
    const auto wrapped = wrap_runs(inline_markdown(paragraph_, style_.color), width);
    for (std::size_t i = 0; i < wrapped.size(); ++i) {
      out_.push_back(std::string(indent, ' ') + (i == 0 ? marker : std::string(display_width(marker), ' ')) +
                     wrapped[i]);
    }
    paragraph_.clear();
  }

  void flush_table() {
    std::vector<std::string> rows;
    rows.swap(table_);
    for (auto& l : TableRenderer(rows, style_).lines()) out_.push_back(std::move(l));
  }

  const MarkdownStyle& style_;
  std::vector<std::string> out_;
  std::string paragraph_;
  std::optional<ListItem> item_;
  std::vector<std::string> table_;
  bool fenced_ = false;
};

}  // namespace

std::vector<TextRun> inline_markdown(std::string_view text, bool color) {
  std::vector<TextRun> runs;
  parse_inline(text, "", false, color, runs);
  return runs;
}

std::vector<std::string> render_markdown(std::string_view text, const MarkdownStyle& style) {
  return BlockRenderer(style).render(text);
}

}  // namespace cudalab
