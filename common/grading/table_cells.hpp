// The tables of compare, grade and the gradebook, cell by cell: the form a table takes (text for
// a terminal, markdown, CSV), a cell escaped for its form, and text laid out to a terminal's width.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"
#include "common/report/report.hpp"

namespace cudalab {

enum class TableFormat { text, md, csv };
TableFormat parse_table_format(const std::string& text);  // "text" | "md" | "csv"

// Quoted (RFC 4180) when it holds a comma, a quote or a line break.
inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

// A '|' would end the cell.
inline std::string md_cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

// Phrases as one list, "a; b; c" (in Chinese with the full-width semicolon: Catalogue::render).
Message listed(const std::vector<Message>& items);

// Each message in `lang`.
std::vector<std::string> spoken(const std::vector<Message>& phrases, Lang lang);

// The run's first device by name, "no device" when it has none.
Message device_of(const Report& r);

// The headline metrics of a run as "key value unit" items (data).
std::vector<std::string> headline_items(const Report& r);

// `text` wrapped to `width`: its first line after `first` spaces, the others after `rest`.
void put_wrapped(std::ostringstream& out, const std::string& text, std::size_t width, std::size_t first,
                 std::size_t rest);

// Items joined by `separator`, as many to a line as fit `width` after `indent`; an item is split
// only when it is wider than a line by itself.
void put_packed(std::ostringstream& out, const std::vector<std::string>& items, std::size_t width, std::size_t indent,
                const std::string& separator = "  ");

// A markdown table's heading row, each cell's words in `lang` (the letters A and B, and B/A, are
// data), and the row that aligns its columns.
void md_heading(std::ostringstream& out, const std::vector<Message>& cells, const std::string& alignment, Lang lang);

}  // namespace cudalab
