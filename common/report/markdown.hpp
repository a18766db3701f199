// The Markdown of the course notes, rendered for a terminal the way a reader expects it:
// paragraphs wrapped (Chinese lines joined without spaces), "- " / "* " bullets and "1. " numbered
// items as lists with hanging indents (nested by two spaces of indent), pipe tables as aligned
// columns with a rule under the header, "#" headings bold, fenced and four-space code verbatim.
// Inline `code`, **strong** and *emphasis* lose their markers; on a colour terminal they are
// painted (cyan, bold, italic); wrapping never splits one across lines unless it is wider than
// the line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/text_format.hpp"

namespace cudalab {

struct MarkdownStyle {
  std::size_t width = 80;  // columns the rendered lines may take
  bool color = false;
  bool unicode = true;  // "─" under a table's header; "-" otherwise
};

// One paragraph's inline Markdown as styled runs, markers removed.
std::vector<TextRun> inline_markdown(std::string_view text, bool color);

// A notes section as terminal lines, without newlines; blank lines separate paragraphs.
std::vector<std::string> render_markdown(std::string_view text, const MarkdownStyle& style);

}  // namespace cudalab
