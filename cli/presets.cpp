#include "cli/presets.hpp"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/stat.h>

#include <fmt/format.h>

#include "common/core/errors.hpp"

namespace cudalab {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The value part of `key = value  # comment`: a quoted string keeps a '#' inside it.
std::optional<PresetValue> parse_value(const std::string& raw, std::string& error) {
  const std::string v = trim(raw);
  PresetValue out;
  if (!v.empty() && (v[0] == '"' || v[0] == '\'')) {
    const char quote = v[0];
    std::string text;
    std::size_t i = 1;
    for (; i < v.size() && v[i] != quote; ++i) {
      if (quote == '"' && v[i] == '\\' && i + 1 < v.size()) {
        const char e = v[++i];
        text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        text += v[i];
      }
    }
    if (i >= v.size()) return error = "a string is not closed", std::nullopt;
    const std::string rest = trim(v.substr(i + 1));
    if (!rest.empty() && rest[0] != '#') return error = "text after the string", std::nullopt;
    out.text = text;
    out.type = PresetValue::Type::string;
    return out;
  }
  const std::string bare = trim(v.substr(0, v.find('#')));
  static const std::regex integer(R"([+-]?[0-9][0-9_]*)"), real(R"([+-]?[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?)");
  if (bare == "true" || bare == "false") {
    out.text = bare;
    out.type = PresetValue::Type::boolean;
  } else if (std::regex_match(bare, integer)) {
    for (char c : bare) {
      if (c != '_') out.text += c;
    }
    out.type = PresetValue::Type::integer;
  } else if (std::regex_match(bare, real)) {
    out.text = bare;
    out.type = PresetValue::Type::real;
  } else {
    error = bare.empty() ? "no value after '='" : fmt::format("'{}' is not a TOML value (quote text: \"{}\")", bare, bare);
    return std::nullopt;
  }
  return out;
}

}  // namespace

const PresetSection* PresetFile::find(const std::string& name) const {
  for (const auto& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

PresetFile parse_presets(const std::string& text, const std::string& path) {
  PresetFile file{path, {}};
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& what) { throw UsageError(fmt::format("--config {}:{}: {}", path, number, what)); };
  static const std::regex header(R"(^\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$)");
  static const std::regex assignment(R"(^([A-Za-z0-9_-]+)\s*=(.*)$)");
  while (std::getline(in, line)) {
    ++number;
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a byte-order mark
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::smatch m;
    if (std::regex_match(t, m, header)) {
      if (file.find(m[1].str()) != nullptr) fail(fmt::format("section [{}] appears twice", m[1].str()));
      file.sections.push_back({m[1].str(), number, {}});
      continue;
    }
    if (!std::regex_match(t, m, assignment)) fail(fmt::format("'{}' is neither [section] nor key = value", t));
    if (file.sections.empty()) fail(fmt::format("{} is outside any section; put it under [lesson-name] or [all]", m[1].str()));
    std::string error;
    auto value = parse_value(m[2].str(), error);
    if (!value) fail(fmt::format("[{}] {}: {}", file.sections.back().name, m[1].str(), error));
    value->key = m[1].str();
    value->line = number;
    for (const auto& other : file.sections.back().values) {
      if (other.key == value->key) fail(fmt::format("[{}] {} is set twice", file.sections.back().name, value->key));
    }
    file.sections.back().values.push_back(*value);
  }
  return file;
}

PresetFile read_presets(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw UsageError(fmt::format("--config {}: no such file (a TOML file of [lesson] sections)", path));
  }
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--config {}: cannot read it", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_presets(text.str(), path);
}

std::string preset_origin(const PresetFile& file, const PresetSection& section, const PresetValue& value) {
  return fmt::format("{}:{} [{}]", file.path, value.line, section.name);
}

}  // namespace cudalab
