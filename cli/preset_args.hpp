// Turning a class preset's [section] into command-line flags for one subcommand, so presets and
// flags are validated by the same rules. Flags the user typed win over the preset.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/presets.hpp"

namespace cudalab {

struct PresetArgs {
  std::vector<std::string> args;                // "--streams", "8", "--strict"
  std::map<std::string, std::string> origin;    // flag name -> "class.toml:3 [lesson-name]"
};

// The section's keys as flags of `app`. Throws UsageError naming FILE:LINE [section] for a key
// `app` does not have (with "did you mean"), or a switch given something other than true/false.
// `skip_unknown`: keys `app` lacks are left out instead (a lesson's section under `cudalab all`
// may also set common flags, which apply when the lesson runs alone).
PresetArgs preset_args(const PresetFile& file, const std::string& section, const CLI::App& app,
                       const std::vector<std::string>& user_args, bool skip_unknown = false);

// Parses `args` with `app`, and when CLI11 refuses a value that came from the preset, says
// where it came from: "--config class.toml:3 [lesson-name]: --streams: 0 is out of range...".
void parse_with_origins(CLI::App& app, std::vector<std::string> args, const PresetArgs& preset);

// --print-config: every flag of `app` with its value and where the value came from.
std::string effective_config(const CLI::App& app, const PresetArgs& preset);

}  // namespace cudalab
