// Class presets: a TOML file with one [section] per lesson (its flags as keys), read by
// `--config FILE`. We read the part of TOML a preset needs ourselves — comments anywhere, spaces
// inside brackets, a byte-order mark, strings, integers, floats, booleans — so that every
// problem is reported as FILE:LINE [section] with the flag's own rule, and a bad section stops
// only its own lesson.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cudalab {

struct PresetValue {
  enum class Type { string, integer, real, boolean };
  std::string key;
  std::string text;  // the value as a flag would take it: 64MiB, 8, true
  Type type = Type::string;
  int line = 0;
};

struct PresetSection {
  std::string name;  // a lesson name, "all" or "show"
  int line = 0;
  std::vector<PresetValue> values;
};

struct PresetFile {
  std::string path;
  std::vector<PresetSection> sections;
  const PresetSection* find(const std::string& name) const;
};

// Throws UsageError "--config FILE:LINE: what is wrong" on a syntax error, an unreadable file,
// a key outside any section or a key given twice in one section.
PresetFile read_presets(const std::string& path);
PresetFile parse_presets(const std::string& text, const std::string& path);

// "FILE:LINE [section]": where a value came from, for error messages and --print-config.
std::string preset_origin(const PresetFile& file, const PresetSection& section, const PresetValue& value);

}  // namespace cudalab
