// A section's drawing (Section::art), its words already in the reader's language, drawn for the
// terminal: plain lines, and boxes ("┌─┐" / "│ row │" / "└─┘") whose rows hold cells, columns
// aligned. A drawing wider than the terminal is stacked: plain lines wrap, and each box row puts
// its first cell on a line and its other cells indented beneath it ("a long word is folded, a
// table is stacked"). The pieces are data to the end: nothing drawn is read back.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

struct ArtText {
  bool boxed = false;
  std::string line;                            // a plain line (boxed false)
  std::vector<std::vector<std::string>> rows;  // a box: the cells of each row (boxed true)
};

// A box around rows of cells, columns aligned across the rows that have the most cells.
std::vector<std::string> draw_box(const std::vector<std::vector<std::string>>& rows);

// The drawing as lines no wider than `width` where it can be: drawn as it is when every line
// fits, stacked otherwise.
std::vector<std::string> draw_art(const std::vector<ArtText>& pieces, std::size_t width);

}  // namespace cudalab
