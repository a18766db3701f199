// The class roster (roster.hpp).
#include "common/grading/roster.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "common/core/errors.hpp"
#include "common/core/message.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxFieldChars = 256;

[[noreturn]] void refuse(const std::string& file, std::size_t line, const Message& why) {
  throw UsageError(msg("roster {file}:{line}: {why}", arg("file", printable_value(file)),
                       arg("line", line), arg("why", why)));
}

std::string trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// One record's fields from `text` at `pos` (advanced past its line end); quotes may hold commas,
// doubled quotes and line breaks. `line` counts the lines read.
std::vector<std::string> read_record(std::string_view text, std::size_t& pos, std::size_t& line, const std::string& file) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  const std::size_t first_line = line;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"' && pos < text.size() && text[pos] == '"') {
        fields.back() += '"';
        ++pos;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      ++line;
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
    if (fields.back().size() > kMaxFieldChars) refuse(file, first_line, msg("a field is longer than {max} characters", arg("max", kMaxFieldChars)));
  }
  if (quoted) refuse(file, first_line, Message("a quote is never closed"));
  for (auto& f : fields) f = trimmed(f);
  return fields;
}

}  // namespace

std::vector<RosterStudent> parse_roster(std::string_view text, const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark, as spreadsheets write
  std::size_t pos = 0, line = 1;
  const std::vector<std::string> header = read_record(text, pos, line, file);
  std::optional<std::size_t> user, id, name, email;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string h = lowered(header[i]);
    std::optional<std::size_t>* column = h == "user"                       ? &user
                                         : h == "id" || h == "sis user id" ? &id
                                         : h == "name"                     ? &name
                                         : h == "email"                    ? &email
                                                                           : nullptr;
    if (column == nullptr) continue;  // another column of the LMS's export: not ours
    if (*column) refuse(file, 1, msg("the column {column} is named twice", arg("column", printable_value(header[i]))));
    *column = i;
  }
  if (!user) refuse(file, 1, Message("its first line names no user column (user, id, name, email)"));
  std::vector<RosterStudent> students;
  std::set<std::string> seen;
  while (pos < text.size()) {
    const std::size_t at = line;
    const std::vector<std::string> fields = read_record(text, pos, line, file);
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    if (fields.size() != header.size()) {
      refuse(file, at, msg("{got} fields where the first line names {want}", arg("got", fields.size()), arg("want", header.size())));
    }
    if (students.size() == kMaxRosterStudents) refuse(file, at, msg("more than {max} students", arg("max", kMaxRosterStudents)));
    RosterStudent s;
    s.user = fields[*user];
    if (id) s.id = fields[*id];
    if (name) s.name = fields[*name];
    if (email) s.email = fields[*email];
    if (s.user.empty()) refuse(file, at, Message("a student with no user"));
    if (!seen.insert(s.user).second) refuse(file, at, msg("the user {user} is on the roster twice", arg("user", printable_value(s.user))));
    students.push_back(std::move(s));
  }
  return students;
}

}  // namespace cudalab
