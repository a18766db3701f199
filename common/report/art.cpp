#include "common/report/art.hpp"

#include <algorithm>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

std::vector<std::string> boxed(const std::vector<std::string>& inner) {
  std::size_t inner_w = 0;
  for (const auto& line : inner) inner_w = std::max(inner_w, display_width(line));
  std::vector<std::string> box{"┌" + repeat_text("─", inner_w + 2) + "┐"};
  for (const auto& line : inner) box.push_back("│ " + pad_right(line, inner_w) + " │");
  box.push_back("└" + repeat_text("─", inner_w + 2) + "┘");
  return box;
}

// A box's rows stacked for a narrow terminal: each row's first cell, then its other cells
// indented by two, every cell wrapped to the room inside the edges.
std::vector<std::string> stacked_box(const std::vector<std::vector<std::string>>& rows, std::size_t width) {
  const std::size_t inner_w = std::max<std::size_t>(width, 12) - 4;  // "│ " and " │"
  std::vector<std::string> inner;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string indent = c == 0 ? "" : "  ";
      for (const auto& line : wrap_text(row[c], inner_w - indent.size())) inner.push_back(indent + line);
    }
  }
  return boxed(inner);
}

}  // namespace

std::vector<std::string> draw_box(const std::vector<std::vector<std::string>>& rows) {
  std::size_t most = 0;
  for (const auto& row : rows) most = std::max(most, row.size());
  std::vector<std::size_t> widths(most, 0);
  for (const auto& row : rows) {
    if (row.size() != most) continue;  // rows of another shape are not aligned with the rest
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::vector<std::string> inner;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool aligned = row.size() == most && c + 1 < row.size();
      line += (c == 0 ? "" : "  ") + (aligned ? pad_right(row[c], widths[c]) : row[c]);
    }
    inner.push_back(std::move(line));
  }
  return boxed(inner);
}

std::vector<std::string> draw_art(const std::vector<ArtText>& pieces, std::size_t width) {
  std::vector<std::string> drawn;
  for (const auto& piece : pieces) {
    if (!piece.boxed) {
      drawn.push_back(piece.line);
      continue;
    }
    for (auto& line : draw_box(piece.rows)) drawn.push_back(std::move(line));
  }
  const bool fits =
      std::all_of(drawn.begin(), drawn.end(), [&](const std::string& l) { return display_width(l) <= width; });
  if (fits) return drawn;
  std::vector<std::string> out;
  for (const auto& piece : pieces) {
    const auto lines = piece.boxed            ? stacked_box(piece.rows, width)
                       : piece.line.empty() ? std::vector<std::string>{""}
                                            : wrap_text(piece.line, width);
    out.insert(out.end(), lines.begin(), lines.end());
  }
  return out;
}

}  // namespace cudalab
