// The subcommands, in CLI11's subcommands-in-files style: each file holds one command's
// setup_X(CLI::App&, CommandSetup&), which adds the subcommand and its options (bound to the one
// Invocation), and its run_X(const Invocation&), which does the work and returns the exit code.
// command_line.cpp holds the one ordered registration list.
#pragma once

#include <deque>

#include <CLI/CLI.hpp>

#include "cli/invocation.hpp"
#include "common/core/message.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// What a setup function binds to: the Invocation being parsed, and a place for the lesson
// objects the lesson subcommands set their params on (one per subcommand; the parsed one moves
// into the Invocation).
// Copied into the subcommands' callbacks: it holds only references, to members of the CommandLine.
struct CommandSetup {
  Invocation& inv;
  std::deque<LessonSetup>& lesson_pool;
  CLI::App*& parsed;  // the subcommand CLI11 parsed, set by its callback
  std::string& config_path;  // --config FILE, taken by every subcommand that reads presets
};

using SetupFunction = void (*)(CLI::App&, CommandSetup&);

void setup_lessons(CLI::App& app, CommandSetup& setup);     // one subcommand per built lesson
void setup_all(CLI::App& app, CommandSetup& setup);
void setup_live(CLI::App& app, CommandSetup& setup);
void setup_show(CLI::App& app, CommandSetup& setup);
void setup_compare(CLI::App& app, CommandSetup& setup);
void setup_grade(CLI::App& app, CommandSetup& setup);
void setup_submit(CLI::App& app, CommandSetup& setup);
void setup_class(CLI::App& app, CommandSetup& setup);
void setup_list(CLI::App& app, CommandSetup& setup);
void setup_help(CLI::App& app, CommandSetup& setup);
void setup_completion(CLI::App& app, CommandSetup& setup);
void setup_exercise(CLI::App& app, CommandSetup& setup);

int run_lesson_command(Invocation& inv);
int run_all(Invocation& inv);
int run_live(Invocation& inv);
int run_show(const Invocation& inv);
int run_compare(const Invocation& inv);
int run_grade(const Invocation& inv);
int run_submit(const Invocation& inv);
int run_class(const Invocation& inv);
int run_list(const Invocation& inv);
int run_exercise(Invocation& inv);
int run_course(const Invocation& inv);  // no command: the course list and where to start

// Adds a lesson's subcommand to `parent` (the top level, or `live`): its own flags and the common
// ones, all bound to a LessonSetup from the pool.
CLI::App* add_lesson_subcommand(CLI::App& parent, const CourseEntry& entry, CommandSetup& setup, Command command);

// The run a lesson makes, with what every report carries stamped on it (identity, version, time,
// device, preflight and classroom snapshot); shared by a lesson run, `all` and live mode.
Report run_stamped_lesson(const LessonSetup& setup, const Invocation& inv);

// Without a GPU a student can still read what the lesson showed on the lab's.
Message reference_hint(const CourseEntry* entry, bool predicting = false);

}  // namespace cudalab
