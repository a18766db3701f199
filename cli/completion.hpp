// `cudalab completion bash|zsh|fish`: a completion script generated from the CLI11 app itself
// (every subcommand, every flag, the values of choice flags, files for path flags), so it is
// never out of step with the binary. A flag may stand wherever the README allows it: --config
// FILE before the lesson too.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace cudalab {

// Throws UsageError for a shell it does not know.
std::string completion_script(const CLI::App& app, const std::string& shell);

}  // namespace cudalab
