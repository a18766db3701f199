#include "common/report/markdown.hpp"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <memory>
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

std::string_view literal_of(cmark_node* node) {
  const char* text = cmark_node_get_literal(node);
  return text == nullptr ? std::string_view() : std::string_view(text);
}

std::string_view type_of(cmark_node* node) { return cmark_node_get_type_string(node); }

// The notes' Markdown as cmark-gfm's tree (CommonMark with GitHub's table extension).
struct Document {
  struct Free {
    void operator()(cmark_node* node) const { cmark_node_free(node); }
  };
  std::unique_ptr<cmark_node, Free> root;

  explicit Document(std::string_view text) {
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser* parser = cmark_parser_new(CMARK_OPT_DEFAULT);
    cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension("table"));
    cmark_parser_feed(parser, text.data(), text.size());
    root.reset(cmark_parser_finish(parser));
    cmark_parser_free(parser);
  }
};

// One block's inline nodes as styled runs, markers gone. Text that touches an emphasis or a code
// span stays apart from it (wrapping may break between them); a line break in the source becomes
// a space, or nothing between two Chinese characters (prose_joins_without_space).
class InlineRuns {
 public:
  explicit InlineRuns(bool color) : color_(color) {}

  void walk(cmark_node* parent, const std::string& sgr, bool keep_together) {
    std::string plain;
    auto flush = [&] {
      if (!plain.empty()) runs_.push_back({plain, sgr, keep_together});
      plain.clear();
    };
    for (cmark_node* node = cmark_node_first_child(parent); node != nullptr; node = cmark_node_next(node)) {
      const cmark_node_type type = cmark_node_get_type(node);
      if (type == CMARK_NODE_SOFTBREAK || type == CMARK_NODE_LINEBREAK) {
        line_break_ = true;
      } else if (type == CMARK_NODE_TEXT || type == CMARK_NODE_HTML_INLINE) {
        plain += joined(literal_of(node));
      } else if (type == CMARK_NODE_CODE) {
        flush();
        runs_.push_back({joined(literal_of(node)), color_ ? combine_sgr(sgr, kCodeSgr) : sgr, true});
      } else if (type == CMARK_NODE_EMPH || type == CMARK_NODE_STRONG) {
        flush();
        const char* style = type == CMARK_NODE_STRONG ? kStrongSgr : kEmphasisSgr;
        walk(node, color_ ? combine_sgr(sgr, style) : sgr, true);
      } else {  // links and the like: their text
        flush();
        walk(node, sgr, keep_together);
      }
    }
    flush();
  }

  // Another block's text continues this one's, as a source line continues a paragraph.
  void continue_line() { line_break_ = !text_.empty(); }

  std::vector<TextRun> take() { return std::move(runs_); }

 private:
  std::string joined(std::string_view text) {
    std::string out;
    if (line_break_ && !text.empty() && !prose_joins_without_space(text_, text)) out += ' ';
    if (!text.empty()) line_break_ = false;
    out += text;
    if (!text.empty()) text_ = std::string(text.substr(text.size() >= 16 ? text.size() - 16 : 0));
    return out;
  }

  bool color_;
  std::vector<TextRun> runs_;
  std::string text_;  // the end of the text so far: where a line break joins
  bool line_break_ = false;
};

// `text` with a backslash before whatever would start a block at the start of a line ("# ",
// "- ", "1. ", "> "): a question or a label is one paragraph, whatever its first word.
std::string inline_only(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : ' ';
    if (line_start && c != ' ') {
      std::size_t digits = i;
      while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
      const bool numbered = digits > i && digits < text.size() && (text[digits] == '.' || text[digits] == ')');
      if (numbered) {
        out.append(text.substr(i, digits - i)).append("\\");
        i = digits - 1;
        line_start = false;
        continue;
      }
      if (c == '#' || c == '>' || c == '|' || ((c == '-' || c == '+' || c == '*' || c == '=') && next == ' ')) out += '\\';
      line_start = false;
    }
    out += c;
    if (c == '\n') line_start = true;
  }
  return out;
}

std::vector<TextRun> runs_of(cmark_node* block, bool color) {
  InlineRuns runs(color);
  runs.walk(block, "", false);
  return runs.take();
}

std::size_t runs_width(const std::vector<TextRun>& runs) {
  return display_width(wrap_runs(runs, static_cast<std::size_t>(-1)).front());
}

// A table's cells as runs, its header row bold on a colour terminal, and which columns are
// right-aligned ("---:"; centred columns are left-aligned).
class TableRenderer {
 public:
  TableRenderer(cmark_node* table, const MarkdownStyle& style) : style_(style) {
    const uint8_t* align = cmark_gfm_extensions_get_table_alignments(table);
    columns_ = cmark_gfm_extensions_get_table_columns(table);
    for (std::size_t c = 0; c < columns_; ++c) right_.push_back(align != nullptr && align[c] == 'r');
    for (cmark_node* row = cmark_node_first_child(table); row != nullptr; row = cmark_node_next(row)) {
      const bool header = cmark_gfm_extensions_get_table_row_is_header(row) != 0;
      header_ = header_ || header;
      rows_.emplace_back();
      for (cmark_node* cell = cmark_node_first_child(row); cell != nullptr; cell = cmark_node_next(cell)) {
        auto runs = runs_of(cell, style_.color);
        if (header && style_.color) {
          for (auto& run : runs) run.sgr = combine_sgr(run.sgr, kStrongSgr);
        }
        rows_.back().push_back(std::move(runs));
      }
      rows_.back().resize(columns_);
    }
  }

  std::vector<std::string> lines() const {
    std::vector<std::size_t> widths(columns_, 0);
    for (const auto& row : rows_) {
      for (std::size_t c = 0; c < columns_; ++c) widths[c] = std::max(widths[c], runs_width(row[c]));
    }
    fit(widths);
    std::vector<std::string> out;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      row_lines(rows_[r], widths, out);
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
  // Narrows the widest columns until the table fits the width (or every column is at its
  // minimum): the excess is taken from the widest first, all at once per width level.
  void fit(std::vector<std::size_t>& widths) const {
    std::size_t total = 2 * (widths.size() - 1);
    for (auto w : widths) total += w;
    while (total > style_.width) {
      auto widest = std::max_element(widths.begin(), widths.end());
      if (*widest <= kMinColumnWidth) break;
      --*widest;
      --total;
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
  std::vector<std::vector<std::vector<TextRun>>> rows_;
  std::vector<bool> right_;
  std::size_t columns_ = 0;
  bool header_ = false;
};

// "• " for a bullet, "12. " for a numbered item (its number as written), and how deep it sits:
// two columns of indent in the source per level.
struct ListMarker {
  std::size_t level = 0;
  std::string text;
};

class BlockRenderer {
 public:
  BlockRenderer(std::string_view source, const MarkdownStyle& style) : style_(style) {
    for (std::size_t start = 0; start < source.size();) {
      const std::size_t end = std::min(source.find('\n', start), source.size());
      lines_.push_back(source.substr(start, end - start));
      start = end + 1;
    }
  }

  std::vector<std::string> render(cmark_node* document) {
    container(document);
    blank_lines_until(static_cast<int>(lines_.size()) + 1);
    return std::move(out_);
  }

 private:
  void container(cmark_node* parent) {
    for (cmark_node* node = cmark_node_first_child(parent); node != nullptr; node = cmark_node_next(node)) {
      const cmark_node_type type = cmark_node_get_type(node);
      if (type == CMARK_NODE_ITEM) {
        item(node);
      } else if (type == CMARK_NODE_LIST || type == CMARK_NODE_BLOCK_QUOTE) {
        container(node);
      } else {
        leaf(node, std::nullopt);
      }
    }
  }

  // The item's first paragraph hangs from its marker; what follows a blank line inside it
  // starts at the margin again.
  void item(cmark_node* node) {
    for (cmark_node* child = cmark_node_first_child(node); child != nullptr; child = cmark_node_next(child)) {
      const cmark_node_type type = cmark_node_get_type(child);
      if (type == CMARK_NODE_LIST) {
        container(child);
      } else {
        leaf(child, child == cmark_node_first_child(node) && type == CMARK_NODE_PARAGRAPH
                        ? std::optional<ListMarker>(marker_of(node))
                        : std::nullopt);
      }
    }
  }

  ListMarker marker_of(cmark_node* item) const {
    const int line = cmark_node_get_start_line(item);
    const std::size_t column = static_cast<std::size_t>(std::max(1, cmark_node_get_start_column(item)) - 1);
    const std::string_view text = line >= 1 && static_cast<std::size_t>(line) <= lines_.size()
                                      ? lines_[static_cast<std::size_t>(line) - 1]
                                      : std::string_view();
    ListMarker marker{column / 2, "• "};
    if (cmark_node_get_list_type(cmark_node_parent(item)) == CMARK_ORDERED_LIST && column < text.size()) {
      const std::size_t dot = text.find_first_not_of("0123456789", column);
      marker.text = std::string(text.substr(column, dot == std::string_view::npos ? 0 : dot - column)) + ". ";
    }
    return marker;
  }

  void leaf(cmark_node* node, const std::optional<ListMarker>& marker) {
    blank_lines_until(cmark_node_get_start_line(node));
    last_line_ = std::max(last_line_, cmark_node_get_end_line(node));
    const cmark_node_type type = cmark_node_get_type(node);
    if (type == CMARK_NODE_HEADING) {
      heading(node);
    } else if (type == CMARK_NODE_CODE_BLOCK) {
      code_block(node);
    } else if (type_of(node) == "table") {
      for (auto& l : TableRenderer(node, style_).lines()) out_.push_back(std::move(l));
    } else if (type == CMARK_NODE_HTML_BLOCK || type == CMARK_NODE_THEMATIC_BREAK) {
      for (int l = cmark_node_get_start_line(node); l <= cmark_node_get_end_line(node); ++l) out_.emplace_back(source_line(l));
    } else {
      paragraph(runs_of(node, style_.color), marker);
    }
  }

  // One empty line for each blank line of the source before `line`, as the reader left them.
  void blank_lines_until(int line) {
    for (int l = last_line_ + 1; l < line; ++l) out_.emplace_back();
    last_line_ = std::max(last_line_, line - 1);
  }

  std::string_view source_line(int line) const {
    return line >= 1 && static_cast<std::size_t>(line) <= lines_.size() ? lines_[static_cast<std::size_t>(line) - 1]
                                                                          : std::string_view();
  }

  void heading(cmark_node* node) {
    auto runs = runs_of(node, style_.color);
    for (auto& run : runs) {
      if (style_.color) run.sgr = combine_sgr(run.sgr, kStrongSgr);
      run.keep_together = true;
    }
    for (auto& l : wrap_runs(runs, style_.width)) out_.push_back(std::move(l));
  }

  // Code as written: the source lines between the fences, or the indented lines themselves.
  void code_block(cmark_node* node) {
    const int first = cmark_node_get_start_line(node), last = cmark_node_get_end_line(node);
    int length = 0, offset = 0;
    char fence = 0;
    const bool fenced = cmark_node_get_fenced(node, &length, &offset, &fence) != 0;
    for (int l = fenced ? first + 1 : first; l <= (fenced ? last - 1 : last); ++l) out_.emplace_back(source_line(l));
  }

  void paragraph(const std::vector<TextRun>& runs, const std::optional<ListMarker>& marker) {
    if (runs.empty()) return;
    const std::size_t indent = marker ? 2 * marker->level : 0;
    const std::string text = marker ? marker->text : "";
    const std::size_t hang = indent + display_width(text);
    const std::size_t width = style_.width > hang + 10 ? style_.width - hang : 10;
    const auto wrapped = wrap_runs(runs, width);
    for (std::size_t i = 0; i < wrapped.size(); ++i) {
      out_.push_back(std::string(indent, ' ') + (i == 0 ? text : std::string(display_width(text), ' ')) + wrapped[i]);
    }
  }

  const MarkdownStyle& style_;
  std::vector<std::string_view> lines_;
  std::vector<std::string> out_;
  int last_line_ = 0;  // the last source line rendered
};

}  // namespace

std::vector<TextRun> inline_markdown(std::string_view text, bool color) {
  const Document document(inline_only(text));
  InlineRuns runs(color);
  for (cmark_node* block = cmark_node_first_child(document.root.get()); block != nullptr;
       block = cmark_node_next(block)) {
    runs.continue_line();
    runs.walk(block, "", false);
  }
  return runs.take();
}

std::vector<std::string> render_markdown(std::string_view text, const MarkdownStyle& style) {
  const Document document(text);
  return BlockRenderer(text, style).render(document.root.get());
}

}  // namespace cudalab
