// The cells and lines the tables of compare, grade and the gradebook share (table_cells.hpp).
#include "common/grading/table_cells.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

TableFormat parse_table_format(const std::string& text) {
  if (text == "text") return TableFormat::text;
  if (text == "md") return TableFormat::md;
  if (text == "csv") return TableFormat::csv;
  throw UsageError(msg("--format: '{value}' is not one of text, md, csv", arg("value", text)));
}

Message listed(const std::vector<Message>& items) { return join(items, "; "); }

std::vector<std::string> spoken(const std::vector<Message>& phrases, Lang lang) {
  std::vector<std::string> out;
  for (const auto& phrase : phrases) out.push_back(tr(lang, phrase));
  return out;
}

std::vector<std::string> headline_items(const Report& r) {
  std::vector<std::string> items;
  for (const auto& key : r.headline_metric_keys()) {
    if (const Metric* m = r.find_metric(key); m != nullptr && !m->samples.empty()) {
      items.push_back(fmt::format("{} {} {}", key, format_number(m->summary().median), m->unit));
    }
  }
  return items;
}

Message device_of(const Report& r) {
  if (r.devices.empty()) return "no device";
  return verbatim(r.devices.front().name);
}

void put_wrapped(std::ostringstream& out, const std::string& text, std::size_t width, std::size_t first,
                 std::size_t rest) {
  const auto lines = wrap_text(text, std::max<std::size_t>(width, rest + 20) - std::max(first, rest));
  for (std::size_t i = 0; i < lines.size(); ++i) out << std::string(i == 0 ? first : rest, ' ') << lines[i] << '\n';
}

void put_packed(std::ostringstream& out, const std::vector<std::string>& items, std::size_t width, std::size_t indent,
                const std::string& separator) {
  const std::size_t room = std::max<std::size_t>(width, indent + 20) - indent;
  std::string line;
  const auto flush = [&] {
    if (!line.empty()) out << std::string(indent, ' ') << line << '\n';
    line.clear();
  };
  for (const auto& item : items) {
    if (!line.empty() && display_width(line) + display_width(separator) + display_width(item) > room) flush();
    if (line.empty() && display_width(item) > room) {
      const auto pieces = wrap_text(item, room);
      for (std::size_t i = 0; i + 1 < pieces.size(); ++i) out << std::string(indent, ' ') << pieces[i] << '\n';
      line = pieces.back();
      continue;
    }
    line += (line.empty() ? "" : separator) + item;
  }
  flush();
}

void md_heading(std::ostringstream& out, const std::vector<Message>& cells, const std::string& alignment, Lang lang) {
  std::string line = "|";
  for (const auto& cell : cells) {
    const std::string text = md_cell(tr(lang, cell));
    line += text.empty() ? " |" : " " + text + " |";
  }
  out << line << '\n' << alignment << '\n';
}

}  // namespace cudalab
