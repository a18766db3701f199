// Flags every lesson understands, and the validated option types lessons build theirs from
// (integers in a range, sizes with units). Bad input becomes one line naming the flag and
// what is allowed; cli/ turns it into ExitCode::usage.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/core/units.hpp"
#include "common/lesson/lesson.hpp"

namespace cudalab {

struct CommonOptions {
  int device = -1;              // -1: the lesson's choice (device 0, or every device for the device query)
  std::string format = "text";  // text | json
  std::string json_path;        // --json FILE; "-" is stdout
  bool stable = false;
  bool portable = false;        // --portable: the stable form cut to what every correct GPU prints
  std::string color = "auto";   // auto | always | never
  std::string lang;             // zh | en; empty: from LC_ALL / LANG
  int repeat = 0;               // 0: the lesson's default
  int warmup = -1;              // -1: the lesson's default
  bool pause = false;
  bool strict = false;
  bool timeline = false;   // --timeline: trace one extra run with CUPTI and draw it
  std::string trace_path;  // --trace FILE.json: that run as Chrome trace events (Perfetto)
  bool print_config = false;  // --print-config: show the effective flags and where each came from
  int wait_idle_s = 0;     // --wait-idle SECONDS: wait for other processes to leave the GPU first
  bool tables = false;     // --table: list every plotted metric too
  std::string svg_dir;     // --svg DIR: each plot and timeline as an SVG file
  bool predict = false;    // --predict: ask the lesson's questions before it measures
  std::string answers_path;  // --answers FILE: the answers, for homework and tests
};

// The flags that only shape output (shared by lessons, `all` and `show`).
void add_picture_options(CLI::App& app, CommonOptions& options);

void add_common_options(CLI::App& app, CommonOptions& options);

// --portable (implies --stable): the grading form that holds on any GPU.
CLI::Option* add_portable_flag(CLI::App& app, CommonOptions& options);

// --name SIZE with units, limited to [min_bytes, max_bytes].
CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::uint64_t& bytes,
                             std::uint64_t min_bytes, std::uint64_t max_bytes,
                             const std::string& description);

// A whole number in [min, max]; refuses "1e3", " 4" and "4.5", which CLI11 alone would take.
CLI::Validator integer_in_range(int min, int max);

// --name N, an integer limited to [min, max].
CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& value, int min, int max,
                            const std::string& description);

// --name FILE for a file the run will write ("-" allowed when allow_stdout): refused at parse
// time when it cannot be created, so a lesson never runs and then loses its output.
CLI::Option* add_output_file_option(CLI::App& app, const std::string& name, std::string& path,
                                    const std::string& description, bool allow_stdout);

// --name WORD, one of `choices`.
CLI::Option* add_choice_option(CLI::App& app, const std::string& name, std::string& value,
                               const std::vector<std::string>& choices,
                               const std::string& description);

// Flags described by FlagSpecs (a lesson's FlagTable), each set through `set_flag`, which applies
// the table's rule: the command line, presets and live mode apply one rule.
using FlagSetter = std::function<std::string(const std::string& name, const std::string& text)>;
void add_flag_options(CLI::App& app, const std::vector<FlagSpec>& flags, const FlagSetter& set_flag);
void add_lesson_options(CLI::App& app, Lesson& lesson);

}  // namespace cudalab
