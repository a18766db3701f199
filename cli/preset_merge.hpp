// A class preset merged into the Invocation after CLI11 has parsed the command line: a section's
// values set the flags the user did not type, through the same flag-table rows as the command
// line, and each value keeps where it came from for --print-config.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/invocation.hpp"
#include "cli/presets.hpp"

namespace cudalab {

// The flags typed on the command line (CLI11 counted them), recorded with origin "flag".
void mark_typed(Invocation& inv, const CLI::App* parsed);

// [all] (every lesson) and then [lesson-name] for a lesson or live mode; [all] for `all` and each
// lesson's own section on that lesson's copy of the flags (LessonSetup::tour, set even without a
// file); [show] for show. Flags typed on the command line win. Throws UsageError
// "--config FILE:LINE [section]: --flag: why" for a value the flag refuses, a key no flag has, a
// wrong TOML type or a section that is neither [all], [show] nor a lesson's name; under `all` a
// lesson's bad section only stops that lesson (LessonSetup::preset_error).
void apply_presets(Invocation& inv, const CLI::App* parsed, const PresetFile& presets);

// `--print-config`: every flag of the command with its value and where it came from.
std::string effective_config(const Invocation& inv);

}  // namespace cudalab
