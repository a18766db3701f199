#include "cli/presets.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

// A path is echoed whole up to this many characters: students name their files, and a cut name
// would not say which one.
constexpr std::size_t kPathChars = 200;

// The [section] a line belongs to, for an error toml++ reports by line alone: the last header
// line above it. One pass over the text.
std::string section_above(std::string_view text, std::size_t line) {
  std::string section;
  std::size_t number = 1, start = 0;
  while (start < text.size() && number <= line) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view l = text.substr(start, end - start);
    const std::size_t open = l.find_first_not_of(" \t");
    if (open != std::string_view::npos && l[open] == '[') {
      const std::size_t close = l.find(']', open);
      if (close != std::string_view::npos) section = std::string(l.substr(open + 1, close - open - 1));
    }
    start = end + 1;
    ++number;
  }
  const auto first = section.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return section.substr(first, section.find_last_not_of(" \t") - first + 1);
}

// What went wrong, in our words: toml++'s own descriptions ("Error while parsing key-value pair:
// expected '=', saw '\n'") name its grammar, not what a teacher writing a preset did. The first
// rule whose words appear in the description wins; the last says only that the line is not TOML.
const char* syntax_problem(std::string_view description) {
  struct Rule {
    std::vector<std::string_view> words;  // any of them
    const char* problem;
  };
  static const Rule kRules[] = {
      {{"value-terminator"}, "only a # comment may follow a value on its line"},
      {{"could not determine value type", "could not be interpreted as a value", "expected value"},
       "a value TOML cannot read: text goes in quotes (size = \"64MiB\"), numbers and true/false do not"},
      {{"cannot redefine existing", "cannot insert"}, "this key or [section] is given twice"},
      {{"expected '='"}, "a key needs = and a value: streams = 8"},
      {{"encountered end-of-file"}, "the file ends inside a text, a [section] or a list: a closing quote or ] is missing"},
      {{"expected ']'", "table header", "array-of-tables"}, "a section header is one name in brackets: [stream-overlap]"},
      {{"expected a comment or whitespace"}, "only a # comment may follow a value on its line"},
      {{"expected keys, tables", "expected bare key", "blank bare keys"},
       "a line holds a key (streams = 8), a [section] or a # comment"},
      {{"string: unescaped control"}, "a text in quotes must end on its line: a closing quote is missing"},
      {{"control character", "unicode", "escape sequence", "line-ending backslash", "length limit"},
       "a character or escape that TOML does not allow here"},
      {{"digit", "underscore", "leading zero", "64 bits", "exponent", "numeric value"},
       "a number TOML cannot read: write whole numbers plainly (repeat = 20)"},
  };
  // "size = 64MiB": a number followed by letters is text that lost its quotes.
  const std::size_t saw = description.find("saw '");
  const bool number = description.find("integer") != std::string_view::npos ||
                      description.find("floating-point") != std::string_view::npos;
  if (number && saw != std::string_view::npos && saw + 5 < description.size() &&
      std::isalpha(static_cast<unsigned char>(description[saw + 5]))) {
    return kRules[1].problem;
  }
  for (const Rule& rule : kRules) {
    for (const auto& w : rule.words) {
      if (description.find(w) != std::string_view::npos) return rule.problem;
    }
  }
  return "this is not valid TOML";
}

// "--config WHERE: what is wrong": WHERE (the file, line, [section] and key) is data, said as it is
// in every language; what is wrong is words.
[[noreturn]] void refuse_at(const std::string& where, Message problem) {
  throw UsageError(msg("--config {origin}: {problem}", arg("origin", where), arg("problem", std::move(problem))));
}

[[noreturn]] void refuse_syntax(const toml::parse_error& e, std::string_view text, const std::string& path) {
  const auto& where = e.source().begin;
  const std::string section = section_above(text, where.line);
  refuse_at(fmt::format("{}:{}:{}{}", printable_value(path, kPathChars), where.line, where.column,
                        section.empty() ? "" : " [" + printable_value(section) + "]"),
            syntax_problem(e.description()));
}

// What no preset needs and toml++ should not be trusted with: its parser descends once per
// nested list or inline table (a debug build asserted inside parse_key() on 100,000 brackets), and
// a value or key thousands of characters long is a mistake, not a setting. Checked over the text
// before toml++ sees it, in one pass that knows TOML's strings and comments, so a bracket inside
// quotes or after # does not count. A whole-line comment may be as long as it likes.
struct ShapeProblem {
  std::size_t line = 0;
  Message problem;
};

std::optional<ShapeProblem> shape_problem(std::string_view text) {
  enum class In { plain, comment, basic, literal, long_basic, long_literal } in = In::plain;
  const auto opens = [&text](std::size_t i, char quote) {
    return i + 2 < text.size() && text[i + 1] == quote && text[i + 2] == quote;
  };
  std::size_t line = 1, depth = 0;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 0 || text[i - 1] == '\n') {
      const std::size_t end = std::min(text.find('\n', i), text.size());
      const std::size_t first = text.find_first_not_of(" \t", i);
      const bool comment_line = in == In::plain && first < end && text[first] == '#';
      if (end - i > kMaxPresetLineBytes && !comment_line) {
        return ShapeProblem{line, msg("a line of {length} characters; a preset's lines are at most {limit}",
                                      arg("length", std::to_string(end - i)),
                                      arg("limit", std::to_string(kMaxPresetLineBytes)))};
      }
    }
    const char c = text[i];
    if (c == '\n') ++line;
    if (escaped) {
      escaped = false;
      continue;
    }
    switch (in) {
      case In::plain:
        if (c == '#') in = In::comment;
        else if (c == '"' && opens(i, '"')) in = In::long_basic, i += 2;
        else if (c == '"') in = In::basic;
        else if (c == '\'' && opens(i, '\'')) in = In::long_literal, i += 2;
        else if (c == '\'') in = In::literal;
        else if ((c == '[' || c == '{') && ++depth > kMaxPresetDepth) {
          return ShapeProblem{line, msg("lists and tables nested more than {limit} deep; a preset's values are "
                                        "plain (streams = 8) or one list (lessons = [\"03\", \"05\"])",
                                        arg("limit", std::to_string(kMaxPresetDepth)))};
        } else if ((c == ']' || c == '}') && depth > 0) --depth;
        break;
      case In::comment:
        if (c == '\n') in = In::plain;
        break;
      case In::basic:
        if (c == '\\') escaped = true;
        else if (c == '"' || c == '\n') in = In::plain;  // unterminated at the line's end: toml++ says so
        break;
      case In::literal:
        if (c == '\'' || c == '\n') in = In::plain;
        break;
      case In::long_basic:
        if (c == '\\') escaped = true;
        else if (c == '"' && opens(i, '"')) in = In::plain, i += 2;
        break;
      case In::long_literal:
        if (c == '\'' && opens(i, '\'')) in = In::plain, i += 2;
        break;
    }
  }
  return std::nullopt;
}

PresetValue value_of(const std::string& file, const std::string& section, const std::string& key,
                     const toml::node& node) {
  PresetValue v;
  v.key = key;
  v.line = static_cast<int>(node.source().begin.line);
  if (const auto* s = node.as_string()) {
    v.text = s->get(), v.type = PresetValue::Type::string;
  } else if (const auto* i = node.as_integer()) {
    v.text = std::to_string(i->get()), v.type = PresetValue::Type::integer;
  } else if (const auto* d = node.as_floating_point()) {
    v.text = fmt::format("{}", d->get()), v.type = PresetValue::Type::real;
  } else if (const auto* b = node.as_boolean()) {
    v.text = b->get() ? "true" : "false", v.type = PresetValue::Type::boolean;
  } else {
    refuse_at(fmt::format("{}:{} [{}] {}", printable_value(file, kPathChars), v.line, printable_value(section),
                          printable_value(key)),
              Message("a flag takes one value (text, a number or true/false), not a table, an array or a date"));
  }
  return v;
}

PresetSection section_of(const std::string& file, const std::string& name, const toml::node& node) {
  PresetSection section{name, static_cast<int>(node.source().begin.line), {}};
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    refuse_at(fmt::format("{}:{}", printable_value(file, kPathChars), section.line),
              msg("{key} is outside any section; put it under [lesson-name] or [all]", arg("key", printable_value(name))));
  }
  for (const auto& [key, value] : *table) {
    section.values.push_back(value_of(file, name, std::string(key.str()), value));
  }
  return section;
}

// ---- [grade] ----------------------------------------------------------------------------------

struct ClassKey {
  const std::string& file;
  const std::string& key;
  const toml::node& node;

  [[noreturn]] void refuse(Message why) const {
    refuse_at(fmt::format("{}:{} [{}] {}", printable_value(file, kPathChars), node.source().begin.line,
                          kClassSection, printable_value(key)),
              std::move(why));
  }
  std::string text() const {
    if (const auto* s = node.as_string()) return s->get();
    refuse(msg("takes text in quotes: {key} = \"...\"", arg("key", key)));
  }
  // A list of texts (a lesson may be a number). One value without brackets is refused (issue 50):
  // `lessons = "03"` reads as one lesson to its author and as a typo of a list to the next one.
  [[noreturn]] void refuse_list() const {
    refuse(msg("takes a list of texts in quotes: {key} = [\"...\", \"...\"]", arg("key", key)));
  }
  std::vector<std::string> list() const {
    const auto item = [this](const toml::node& n) {
      if (const auto* s = n.as_string()) return s->get();
      if (const auto* i = n.as_integer()) return std::to_string(i->get());
      refuse_list();
    };
    const toml::array* array = node.as_array();
    if (array == nullptr) refuse_list();
    std::vector<std::string> out;
    for (const auto& element : *array) out.push_back(item(element));
    return out;
  }
  // A whole number from 0 to `max`.
  int whole_number(int max) const {
    const auto* value = node.as_integer();
    if (value == nullptr || value->get() < 0 || value->get() > max) {
      refuse(msg("takes a whole number from 0 to {max}: {key} = 15", arg("max", max), arg("key", key)));
    }
    return static_cast<int>(value->get());
  }
  // One of `choices`, in quotes.
  std::string choice(const std::vector<std::string>& choices) const {
    const auto* value = node.as_string();
    if (value == nullptr || std::find(choices.begin(), choices.end(), value->get()) == choices.end()) {
      std::string list;  // "\"class\" or \"none\"": data
      for (const auto& c : choices) list += (list.empty() ? "" : " or ") + ("\"" + c + "\"");
      refuse(msg("takes {choices}", arg("choices", list)));
    }
    return value->get();
  }
  // A table of students, each with a date and time: extensions = { alice = 2026-12-01T23:59:00Z }.
  std::map<std::string, std::string> times_by_student() const {
    const toml::table* table = node.as_table();
    if (table == nullptr) {
      refuse(msg("takes a table of students and times: {key} = { alice = 2026-12-01T23:59:00Z }", arg("key", key)));
    }
    std::map<std::string, std::string> out;
    for (const auto& [student, time] : *table) {
      const std::string name(student.str());
      out[name] = ClassKey{file, name, time}.utc_time();
    }
    return out;
  }
  // A TOML date-time with its offset, as UTC in the form runs record their time.
  std::string utc_time() const {
    const auto* value = node.as_date_time();
    if (value == nullptr || !value->get().offset) {
      refuse(msg("takes a date and time with its offset, without quotes: {key} = 2026-12-01T23:59:00Z (or +08:00)",
                 arg("key", key)));
    }
    const toml::date_time& t = value->get();
    std::tm tm{};
    tm.tm_year = t.date.year - 1900, tm.tm_mon = t.date.month - 1, tm.tm_mday = t.date.day;
    tm.tm_hour = t.time.hour, tm.tm_min = t.time.minute, tm.tm_sec = t.time.second;
    const std::time_t utc = ::timegm(&tm) - static_cast<std::time_t>(t.offset->minutes) * 60;
    std::tm out{};
    ::gmtime_r(&utc, &out);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &out);
    return text;
  }
};

ClassSettings class_settings_of(const std::string& file, const toml::node& node) {
  ClassSettings settings;
  settings.line = static_cast<int>(node.source().begin.line);
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    refuse_at(fmt::format("{}:{}", printable_value(file, kPathChars), settings.line),
              msg("{section} is a section: [{section}]", arg("section", std::string(kClassSection))));
  }
  static const std::vector<std::string> kKeys{"drop", "lessons", "build", "gpus", "opens", "due", "grace_minutes", "extensions", "seal", "roster", "prediction_points"};
  for (const auto& [name, value] : *table) {
    const std::string key(name.str());
    const ClassKey k{file, key, value};
    if (key == "drop") settings.drop = k.text();
    else if (key == "lessons") settings.lessons = k.list();
    else if (key == "build") settings.build = k.text();
    else if (key == "gpus") settings.gpus = k.list();
    else if (key == "opens") settings.opens = k.utc_time();
    else if (key == "due") settings.due = k.utc_time();
    else if (key == "grace_minutes") settings.grace_minutes = k.whole_number(7 * 24 * 60);
    else if (key == "prediction_points") settings.prediction_points = k.whole_number(100);
    else if (key == "extensions") settings.extensions = k.times_by_student();
    else if (key == "seal") settings.class_seal = k.choice({"class", "none"}) == "class";
    else if (key == "roster") settings.roster = k.text();
    else {
      const std::string guess = closest_word(key, kKeys);
      if (guess.empty()) {
        k.refuse(msg("is not a key of [{section}] (drop, lessons, build, gpus, opens, due, grace_minutes, extensions, seal, roster, prediction_points)",
                     arg("section", std::string(kClassSection))));
      }
      k.refuse(msg("is not a key of [{section}] (drop, lessons, build, gpus, opens, due, grace_minutes, extensions, seal, roster, prediction_points); did you mean {guess}?",
                   arg("section", std::string(kClassSection)), arg("guess", guess)));
    }
  }
  if (!settings.opens.empty() && !settings.due.empty() && settings.due < settings.opens) {
    refuse_at(fmt::format("{}:{} [{}]", printable_value(file, kPathChars), settings.line, kClassSection),
              msg("due ({due}) is before opens ({opens})", arg("due", settings.due), arg("opens", settings.opens)));
  }
  return settings;
}

}  // namespace

const PresetSection* PresetFile::find(const std::string& name) const {
  for (const auto& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

PresetFile parse_presets(const std::string& text, const std::string& path) {
  if (const auto shape = shape_problem(text)) {
    const std::string section = section_above(text, shape->line);
    refuse_at(fmt::format("{}:{}{}", printable_value(path, kPathChars), shape->line,
                          section.empty() ? "" : " [" + printable_value(section, kPathChars) + "]"),
              shape->problem);
  }
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    refuse_syntax(e, text, path);
  }
  PresetFile file{path, {}, std::nullopt};
  for (const auto& [key, node] : root) {
    if (key.str() == kClassSection) {
      file.grade = class_settings_of(path, node);
    } else {
      file.sections.push_back(section_of(path, std::string(key.str()), node));
    }
  }
  // toml++ keeps a table's keys sorted; a person reads the file top to bottom.
  std::stable_sort(file.sections.begin(), file.sections.end(),
                   [](const PresetSection& a, const PresetSection& b) { return a.line < b.line; });
  for (auto& s : file.sections) {
    std::stable_sort(s.values.begin(), s.values.end(),
                     [](const PresetValue& a, const PresetValue& b) { return a.line < b.line; });
  }
  return file;
}

PresetFile read_presets(const std::string& path) {
  try {
    return parse_presets(read_regular_file(path, kMaxPresetFileBytes, "a preset file (TOML)"), path);
  } catch (const UsageError& e) {
    if (std::string_view(e.what()).rfind("--config", 0) == 0) throw;
    // The file itself: cannot open, too large, not a file.
    throw UsageError(msg("--config: {problem}", arg("problem", words_of(e))));
  }
}

std::string preset_origin(const PresetFile& file, const PresetSection& section, const PresetValue& value) {
  return fmt::format("{}:{} [{}]", printable_value(file.path, kPathChars), value.line, printable_value(section.name));
}

}  // namespace cudalab
