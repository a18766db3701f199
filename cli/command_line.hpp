// argv → one Invocation, through CLI11 once: the registration list of subcommands, the class
// preset merged in (each value with where it came from), then the OutputPlan, decided once.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/invocation.hpp"
#include "common/core/message.hpp"

namespace cudalab {

class CommandLine {
 public:
  CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // Throws CLI::ParseError (help and version included) and UsageError.
  Invocation& parse(int argc, const char* const* argv);

  // The language of an error, or of help, that strikes before the plan is made: --lang as
  // CLI11 saw it (triggered on parse), else a valid --lang anywhere on the command line (help
  // stops CLI11 before it reads one typed after --help, or after a command that does not take
  // it), else the environment's.
  Lang error_lang() const;

  CLI::App& app() { return app_; }
  // --help of a lesson or command, as `cudalab help TOPIC` prints it.
  std::string help_of(const std::string& topic);

 private:
  Message extras_message() const;

  CLI::App app_;
  Invocation inv_;
  std::deque<LessonSetup> lesson_pool_;
  CLI::App* parsed_ = nullptr;
  std::string config_path_;
  std::string typed_lang_;  // the last valid --lang VALUE or --lang=VALUE of argv, "" when none
};

}  // namespace cudalab
