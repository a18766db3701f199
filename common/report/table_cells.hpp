// A cell of a markdown or CSV table, escaped for its form: shared by the renderers of compare,
// grade and the gradebook.
#pragma once

#include <string>

namespace cudalab {

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

}  // namespace cudalab
