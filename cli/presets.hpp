// Class presets: a TOML file with one [section] per lesson (its flags as keys), read by
// `--config FILE` with toml++ (a TOML 1.0 parser; its errors carry the line and column). Every
// problem is one line naming FILE:LINE [section] and the flag's own rule, and a bad section
// stops only its own lesson. The file is untrusted: read without blocking, at most 1 MiB.
#pragma once

#include <map>
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
  std::vector<PresetValue> values;  // in the order of the file
};

// [grade]: the class itself rather than a lesson's flags (README, "Running a course"): where
// students hand runs in, and what `grade` holds the runs to. Every key may be left out.
inline constexpr const char* kClassSection = "grade";
struct ClassSettings {
  int line = 0;
  std::string drop;                  // drop = "/srv/cudalab/inbound": the folder runs are handed into
  std::vector<std::string> lessons;  // lessons = ["03", "stream-overlap"]: the assigned lessons, as typed
  std::string build;                 // build = "0.1.0+527b0d19ea9f": the cudalab build the class runs
  std::vector<std::string> gpus;     // gpus = ["NVIDIA H100 80GB HBM3", "GPU-8f0e..."]: names or UUIDs
  std::string opens, due;            // opens/due = 2026-11-20T09:00:00Z: as UTC "YYYY-MM-DDTHH:MM:SSZ"
  int grace_minutes = 0;             // grace_minutes = 15: a hand-in this late still counts as on time
  int prediction_points = 1;         // prediction_points = 2: Gradescope points per prediction in the band
  std::map<std::string, std::string> extensions;  // extensions = { alice = 2026-11-22T09:00:00Z }
  bool class_seal = true;            // seal = "class" (the default) or "none" (docs/grade.md)
  std::string roster;                // roster = "students.csv": the class's students, beside the preset when relative
};

struct PresetFile {
  std::string path;
  std::vector<PresetSection> sections;  // in the order of the file
  std::optional<ClassSettings> grade;   // [grade], when the file has one
  const PresetSection* find(const std::string& name) const;
};

inline constexpr std::size_t kMaxPresetFileBytes = std::size_t(1) << 20;
// Checked before toml++ reads the text (issue 50): a line longer than this (a whole-line comment
// aside), or lists and inline tables nested deeper, is refused with FILE:LINE.
inline constexpr std::size_t kMaxPresetLineBytes = 4096;
inline constexpr std::size_t kMaxPresetDepth = 8;

// Throws UsageError "--config FILE:LINE [section]: ..." for a line too long or nested too deep,
// "--config FILE:LINE:COLUMN [section]: what is wrong" on a TOML error, and
// "--config FILE:LINE [section] KEY: ..." for a value a flag cannot take (a table, an array).
PresetFile read_presets(const std::string& path);
PresetFile parse_presets(const std::string& text, const std::string& path);

// "FILE:LINE [section]": where a value came from, for error messages and --print-config.
std::string preset_origin(const PresetFile& file, const PresetSection& section, const PresetValue& value);

}  // namespace cudalab
