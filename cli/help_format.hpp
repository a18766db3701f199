// --help that fits the terminal: option descriptions, subcommands, the description and the
// footer wrap at the terminal's width (COLUMNS, or 80 off a terminal) instead of running on.
#pragma once

#include <CLI/CLI.hpp>

namespace cudalab {

class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter();
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
};

}  // namespace cudalab
