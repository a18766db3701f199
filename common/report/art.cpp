#include "common/report/art.hpp"

#include <algorithm>
#include <string_view>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

// The cells of a drawn row: stretches of text separated by two or more spaces.
std::vector<std::string> cells_of(const std::string& row) {
  std::vector<std::string> cells;
  std::size_t i = row.find_first_not_of(' ');
  while (i != std::string::npos) {
    std::size_t end = row.find("  ", i);
    cells.push_back(row.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end == std::string::npos ? end : row.find_first_not_of(' ', end);
  }
  return cells;
}

// "│ row │" without its edges.
std::string inside_edges(std::string row) {
  if (starts_with(row, "│ ")) row.erase(0, std::string_view("│ ").size());
  const std::string_view edge = " │";
  if (row.size() >= edge.size() && row.compare(row.size() - edge.size(), edge.size(), edge) == 0) {
    row.erase(row.size() - edge.size());
  }
  return row;
}

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

std::vector<ArtPiece> parse_art(const std::vector<std::string>& art) {
  std::vector<ArtPiece> pieces;
  for (std::size_t i = 0; i < art.size(); ++i) {
    if (!starts_with(art[i], "┌")) {
      pieces.push_back(ArtPiece{false, art[i], {}});
      continue;
    }
    ArtPiece box{true, {}, {}};
    std::size_t j = i + 1;
    for (; j < art.size() && !starts_with(art[j], "└"); ++j) box.rows.push_back(cells_of(inside_edges(art[j])));
    pieces.push_back(std::move(box));
    i = j;  // the bottom edge: draw_box draws it again
  }
  return pieces;
}

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

std::vector<std::string> fit_art(const std::vector<std::string>& art, std::size_t width) {
  const bool fits = std::all_of(art.begin(), art.end(), [&](const std::string& l) { return display_width(l) <= width; });
  if (fits) return art;
  std::vector<std::string> out;
  for (const auto& piece : parse_art(art)) {
    const auto lines = piece.boxed            ? stacked_box(piece.rows, width)
                       : piece.line.empty() ? std::vector<std::string>{""}
                                            : wrap_text(piece.line, width);
    out.insert(out.end(), lines.begin(), lines.end());
  }
  return out;
}

}  // namespace cudalab
