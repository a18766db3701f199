// The whole command line: argv → one Invocation (cli/command_line.hpp), then the command it
// names, then every way a run can end mapped to one line and an exit code.
#include "cli/app.hpp"

#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/completion.hpp"
#include "cli/live.hpp"
#include "common/core/errors.hpp"
#include "common/core/gpu_queue.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/rendezvous.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

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
    case Command::list: return run_list(inv);
    case Command::help:
      std::cout << command_line.help_of(inv.help_topic);
      return to_int(ExitCode::success);
    case Command::completion:
      std::cout << completion_script(command_line.app(), inv.shell);
      return to_int(ExitCode::success);
    case Command::course: break;
  }
  return run_course(inv);
}

// "cudalab: error: …" in `lang`, on one line, every character printable. The frame and the
// message are translated apart: a pattern of the message must not swallow the frame.
void print_error_line(Lang lang, const std::string& frame, const std::string& message) {
  const std::string translated = tr(lang, frame);
  const std::size_t at = translated.find("{}");
  std::cerr << translated.substr(0, at) << tr(lang, printable(message)) << translated.substr(at + 2) << '\n';
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
  } catch (const CLI::ParseError& e) {
    print_error_line(lang(), "cudalab: error: {}", e.what());
    return to_int(ExitCode::usage);
  } catch (const UsageError& e) {
    print_error_line(lang(), "cudalab: error: {}", e.what());
    return to_int(ExitCode::usage);
  } catch (const WaivedError& e) {
    print_error_line(lang(), "cudalab: waived: {}", e.what());
    return to_int(ExitCode::waived);
  } catch (const InterruptedError&) {
    print_error_line(lang(), "{}", "cudalab: interrupted; everything was released");
    return interrupt_exit_code();  // 130 after Ctrl-C, 143 after SIGTERM
  } catch (const QueueTimeoutError& e) {  // not a CUDA error: the GPU stayed busy for too long
    print_error_line(lang(), "cudalab: {}", e.what());
    return to_int(ExitCode::runtime);
  } catch (const RendezvousError& e) {  // not a CUDA error either: another rank did not answer
    print_error_line(lang(), "cudalab: {}", e.what());
    return to_int(ExitCode::runtime);
  } catch (const RuntimeError& e) {
    print_error_line(lang(), "cudalab: CUDA error: {}", e.what());
    return to_int(ExitCode::runtime);
  } catch (const std::exception& e) {
    print_error_line(lang(), "cudalab: internal error: {}", e.what());
    return to_int(ExitCode::runtime);
  }
}

}  // namespace cudalab
