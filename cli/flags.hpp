// The flags every lesson understands (and `all`, `live`, `show` a part of them), as one
// FlagTable like a lesson's own: the command line registers them with CLI11 through the table,
// presets and live mode set them through the same rows, and --print-config reads them back. So
// each flag is named once and every value meets one rule.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/lesson/flag_table.hpp"
#include "common/lesson/lesson.hpp"

namespace cudalab {

struct CommonFlags {
  // How the lesson runs.
  std::string device;                // "": the lesson's choice (device 0; every device for 01); N; "auto"
  std::optional<int> repeat;         // unset: the lesson's count, adaptive
  std::optional<int> warmup;
  bool strict = false;
  bool timeline = false;
  std::string trace_path;            // --trace FILE (Chrome trace JSON)
  int wait_idle_s = 0;               // --wait-idle SECONDS
  bool no_queue = false;             // --no-queue: measure without taking a turn
  int queue_timeout_s = 0;           // --queue-timeout SECONDS, 0: wait as long as it takes
  bool predict = false;
  std::string answers_path;          // --answers FILE
  bool live = false;                 // --live: `cudalab 03 --live` is `cudalab live 03`
  bool print_config = false;
  // What the output looks like.
  std::string format = "text";       // text | json
  std::string json_path;             // --json FILE ("-": stdout)
  bool stable = false;
  bool portable = false;
  std::string color = "auto";        // auto | always | never
  std::string lang;                  // zh | en; "": from the environment
  bool tables = false;               // --table
  std::string svg_dir;               // --svg DIR
  bool pause = false;
  bool submit = false;               // --submit: hand the run in to the class's drop folder
};

const FlagTable<CommonFlags>& common_flags();

// The names of the common flags each kind of command takes, in --help order.
// A lesson run (and live mode); --predict and --answers only for a lesson that asks questions.
std::vector<std::string> lesson_flag_names(bool with_predict = true);
std::vector<std::string> all_flag_names();     // `cudalab all`
std::vector<std::string> show_flag_names();    // `cudalab show`

// Registers `flags` with CLI11, each set through `set(name, text)` (a table row's rule), so the
// command line and presets and live mode refuse the same values with the same line.
using FlagSetter = std::function<Message(const std::string& name, const std::string& text)>;
void add_flag_options(CLI::App& app, const std::vector<FlagSpec>& flags, const FlagSetter& set);

// The common flags named `names`, bound to `flags`.
void add_common_options(CLI::App& app, CommonFlags& flags, const std::vector<std::string>& names);
// A lesson's own flags, bound to the lesson's params.
void add_lesson_options(CLI::App& app, Lesson& lesson);

// --config FILE: the class preset, taken by every command that reads one (and the top level).
void add_config_option(CLI::App& app, std::string& path);

// "" or why `text` is not a language/colour/form/...; for flags of commands that are not lessons.
Message lang_problem(const std::string& text);

}  // namespace cudalab
