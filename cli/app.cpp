// The whole command line: argv → one Invocation (cli/command_line.hpp), then the command it
// names, then every way a run can end mapped to one line and an exit code.
#include "cli/app.hpp"

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/failure.hpp"
#include "cli/live.hpp"
#include "cli/man_page.hpp"
#include "common/core/errors.hpp"

namespace cudalab {

namespace {

int dispatch(CommandLine& command_line, Invocation& inv) {
  switch (inv.command) {
    case Command::lesson: return run_lesson_command(inv);
    case Command::all: return run_all(inv);
    case Command::live: return run_live(inv);
    case Command::show: return run_show(inv);
    case Command::compare: return run_compare(inv);
    case Command::grade: return run_grade(inv);
    case Command::submit: return run_submit(inv);
    case Command::class_check: return run_class(inv);
    case Command::list: return run_list(inv);
    case Command::exercise: return run_exercise(inv);
    case Command::help:
      if (inv.manual && !inv.help_topic.empty()) throw UsageError("help --man prints the whole manual; give no TOPIC");
      std::cout << (inv.manual ? man_page(command_line.app(), inv.output.lang()) : command_line.help_of(inv.help_topic));
      return to_int(ExitCode::success);
    case Command::completion:
      std::cout << completion_script(command_line.app(), inv.shell);
      return to_int(ExitCode::success);
    case Command::course: break;
  }
  return run_course(inv);
}

}  // namespace

int run_cli(int argc, const char* const* argv) {
  CommandLine command_line;
  const auto lang = [&] { return command_line.error_lang(); };
  try {
    Invocation& inv = command_line.parse(argc, argv);
    return dispatch(command_line, inv);
  } catch (const CLI::CallForHelp& e) {
    return command_line.app().exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return command_line.app().exit(e);
  } catch (const CLI::CallForVersion& e) {
    return command_line.app().exit(e);
  } catch (...) {
    // Every other way a command ends: one line and its exit code, from the one mapping.
    const Failure failure = failure_of(std::current_exception());
    std::cerr << failure_line(failure, lang()) << '\n';
    return failure.exit_code;
  }
}

}  // namespace cudalab
