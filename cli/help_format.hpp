// --help that fits the terminal and speaks the user's language: option descriptions,
// subcommands, the description and the footer wrap at the terminal's width (COLUMNS, or 80 off
// a terminal), CLI11's headings and our descriptions go through the zh catalogue, and the usage
// line always reads "Usage: cudalab <command> ...".
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"

namespace cudalab {

class WrappingFormatter : public CLI::Formatter {
 public:
  // `lang` is asked when help is printed: --lang may come after --help on the command line.
  explicit WrappingFormatter(std::function<Lang()> lang);
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override;
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

  // The words of --help, for the man page too: an option's names with its value ("--size SIZE"),
  // its description with its default, and a command's description, in the help's language.
  std::string option_names(const CLI::Option* opt, bool is_positional) const;
  std::string option_words(const CLI::Option* opt) const;
  std::string command_words(const CLI::App* app) const { return tr_of_(app, app->get_description()); }
  std::string words(const std::string& text) const { return tr_(text); }

 private:
  std::string tr_(const std::string& text) const;
  std::string tr_of_(const CLI::App* app, const std::string& text) const;
  std::function<Lang()> lang_;
};

// The words of an option's description as a template ("{description} (units B, ...; allowed
// {min} to {max})"): --help translates it, then fills it. CLI11 holds its English.
void describe_option(const CLI::Option* opt, const Message& words);

// The exit codes and where to read more: the footer of every --help.
std::string help_footer();

}  // namespace cudalab
