// A section's drawing (Section::art) as data: plain lines, and boxes drawn as "┌─┐" / "│ row │" /
// "└─┘" whose rows hold cells two or more spaces apart. The translation reads a box cell by cell
// and draws it again for the new widths; the text renderer draws one stacked when it is wider
// than the terminal. Both read and draw boxes here, so they agree on what a box is.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

struct ArtPiece {
  bool boxed = false;
  std::string line;                             // a plain line (boxed false)
  std::vector<std::vector<std::string>> rows;  // a box: the cells of each row (boxed true)
};

// The drawing read into plain lines and boxes; a box without its bottom edge ends with the art.
std::vector<ArtPiece> parse_art(const std::vector<std::string>& art);

// A box around rows of cells, columns aligned across the rows that have the most cells.
std::vector<std::string> draw_box(const std::vector<std::vector<std::string>>& rows);

// The drawing as it is when every line fits `width` columns. Otherwise it is stacked: plain
// lines wrap, and each box row puts its first cell on a line and its other cells indented
// beneath it, inside a box no wider than `width` ("a long word is folded, a table is stacked").
std::vector<std::string> fit_art(const std::vector<std::string>& art, std::size_t width);

}  // namespace cudalab
