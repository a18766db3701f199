// `cudalab help --man`: the manual page (roff, man(7) macros) made from the same words as --help
// (cli/help_format.hpp): every command, every option with its default, each lesson with its own
// flags, the exit codes. CMake writes it at build time and installs it as man1/cudalab.1.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "common/core/lang.hpp"

namespace cudalab {

std::string man_page(const CLI::App& app, Lang lang);

}  // namespace cudalab
