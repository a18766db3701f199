// Builds the CLI11 app: one subcommand per built lesson (by name and by number), plus list,
// all and show; maps every way a run can end to one line and an exit code.
#include "app.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/completion.hpp"
#include "cli/graders.hpp"
#include "cli/help_format.hpp"
#include "cli/preset_args.hpp"
#include "cli/suggest.hpp"
#include "commands.hpp"
#include "live.hpp"
#include "course.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/presets.hpp"
#include "output.hpp"
#include "common/core/version.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// The commands beside the lessons, as typed.
std::vector<std::string> command_words() {
  return {"list", "all", "show", "compare", "grade", "live", "help", "completion"};
}

std::string footer() {
  return std::string("\n") + exit_code_table() +
         "\nSee README.md for the course, the output forms and what graders may diff.";
}

// A lesson number or name the user typed that is not a subcommand.
std::string unknown_command_message(const std::string& word) {
  for (const auto& entry : course()) {
    if (word == entry.slug || word == std::to_string(entry.number) || word == fmt::format("{:02d}", entry.number)) {
      return fmt::format("lesson {:02d} {} is not built yet; run `cudalab list` for the lessons you can run",
                         entry.number, entry.slug);
    }
  }
  std::vector<std::string> words = command_words();
  for (const auto& entry : course()) words.push_back(entry.slug);
  const std::string guess = closest_word(word, words);
  return fmt::format("unknown lesson or command '{}'{}; run `cudalab list` (lessons 01 to {:02d})", word,
                     guess.empty() ? "" : fmt::format(" (did you mean {}?)", guess), course().back().number);
}

// `--config FILE` may stand before or after the lesson: it is taken out of the arguments here
// and read by our own preset reader (common/bench/presets.hpp).
std::optional<std::string> take_config(std::vector<std::string>& args) {
  std::optional<std::string> path;
  for (std::size_t i = 1; i < args.size();) {
    if (args[i] == "--config") {
      if (i + 1 >= args.size()) throw UsageError("--config needs a file: --config class.toml");
      path = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i), args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else if (args[i].rfind("--config=", 0) == 0) {
      path = args[i].substr(9);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return path;
}

// Where the subcommand is: the first lesson or command word, else the first word that is not a
// flag (0 when there is none). A flag's value ("zh" in "--lang zh 03") is not the command.
std::size_t command_index(const std::vector<std::string>& args) {
  const std::vector<std::string> commands = command_words();
  for (std::size_t i = 1; i < args.size(); ++i) {
    const bool lesson = std::any_of(course().begin(), course().end(), [&](const CourseEntry& e) {
      return args[i] == e.slug || args[i] == std::to_string(e.number) || args[i] == fmt::format("{:02d}", e.number);
    });
    if (lesson || std::find(commands.begin(), commands.end(), args[i]) != commands.end()) return i;
  }
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i].rfind("-", 0) != 0) return i;
  }
  return 0;
}

// `cudalab 03 --live ...` is `cudalab live 03 ...`.
std::vector<std::string> live_flag_to_subcommand(std::vector<std::string> args) {
  const auto flag = std::find(args.begin(), args.end(), "--live");
  if (flag == args.end()) return args;
  args.erase(flag);
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--config") {
      ++i;
      continue;
    }
    if (args[i].rfind("-", 0) != 0) {
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(i), "live");
      break;
    }
  }
  return args;
}

const CourseEntry* find_lesson(const std::string& word) {
  for (const auto& entry : course()) {
    if (entry.make != nullptr && (word == entry.slug || word == std::to_string(entry.number) ||
                                  word == fmt::format("{:02d}", entry.number))) {
      return &entry;
    }
  }
  return nullptr;
}

int start_live(const std::string& word, const std::vector<std::string>& args) {
  const CourseEntry* entry = find_lesson(word);
  if (entry == nullptr) throw UsageError(unknown_command_message(word));
  // Bad flags on the command line are refused before the sitting starts, as for a plain run.
  auto lesson = entry->make();
  CLI::App probe("live");
  CommonOptions o;
  add_common_options(probe, o);
  add_lesson_options(probe, *lesson);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  probe.parse(reversed);
  return run_live(*entry, args);
}

struct LessonCommand {
  const CourseEntry* entry;
  std::unique_ptr<Lesson> lesson;
  CLI::App* sub;
};

// Under `cudalab all`, a lesson's preset section sets its own flags (the lesson object's params).
// Returns the error that stops this lesson, or "".
std::string apply_lesson_preset(const PresetFile& presets, LessonCommand& cmd) {
  try {
    CLI::App probe(cmd.entry->slug);
    add_lesson_options(probe, *cmd.lesson);
    const PresetArgs preset = preset_args(presets, cmd.entry->slug, probe, {}, /*skip_unknown=*/true);
    parse_with_origins(probe, preset.args, preset);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

// CLI11 lists unexpected arguments in reverse (it parses from the back): name them in the order
// typed, say where a global flag must go, and guess a mistyped lesson or flag.
std::string extras_message(const CLI::App& app, const std::vector<std::string>& args) {
  const std::size_t at = command_index(args);
  if (at > 1) {
    // Flags typed before the lesson: they belong after it.
    std::string flags;
    for (std::size_t i = 1; i < at; ++i) flags += (flags.empty() ? "" : " ") + args[i];
    return fmt::format("{} must come after the lesson: cudalab {} {}", flags, args[at], flags);
  }
  if (at == 0) return fmt::format("{} needs a lesson first: cudalab 03 {}", args.size() > 1 ? args[1] : "a flag",
                                  args.size() > 1 ? args[1] : "");
  if (app.get_subcommands().empty()) return unknown_command_message(args[at]);
  const CLI::App* sub = app.get_subcommands().front();
  std::vector<std::string> extras = sub->remaining();
  if (extras.empty()) extras = app.remaining();
  std::string typed;
  for (const auto& a : extras) typed += (typed.empty() ? "" : " ") + a;
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub->get_options()) {
    if (!opt->get_lnames().empty()) names.push_back("--" + opt->get_lnames().front());
  }
  const std::string guess = extras.empty() ? "" : closest_word(extras.front(), names);
  return fmt::format("{} does not take: {}{}", sub->get_name(), typed,
                     guess.empty() || guess == extras.front() ? "" : fmt::format(" (did you mean {}?)", guess));
}

int print_help(const CLI::App& app, const std::string& topic) {
  if (topic.empty()) {
    std::cout << app.help();
    return to_int(ExitCode::success);
  }
  const CourseEntry* entry = find_lesson(topic);
  const std::string name = entry != nullptr ? entry->slug : topic;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == name) {
      std::cout << sub->help();
      return to_int(ExitCode::success);
    }
  }
  throw UsageError(unknown_command_message(topic));
}

}  // namespace

namespace {

// The language of a one-line error: --lang anywhere on the command line (it may not have been
// parsed when the error struck), else the environment's.
Lang error_language(int argc, const char* const* argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--lang" && (std::string(argv[i + 1]) == "zh" || std::string(argv[i + 1]) == "en")) {
      return parse_lang(argv[i + 1]);
    }
  }
  return lang_from_environment();
}

// "cudalab: error: {}" with the message put in, itself translated where the catalogue knows it.
std::string say(const std::string& frame, const std::string& message, Lang lang) {
  const std::size_t at = frame.find("{}");
  return frame.substr(0, at) + tr(lang, message) + frame.substr(at + 2) + '\n';
}

}  // namespace

int run_cli(int argc, const char* const* argv) {
  const Lang lang = error_language(argc, argv);
  CLI::App app("cudalab — a hands-on lab for GPU concurrency: streams, pinned memory, copy/compute "
               "overlap, priorities, host callbacks and CUDA Graphs.",
               "cudalab");
  app.formatter(std::make_shared<WrappingFormatter>());
  app.footer(footer());
  app.set_version_flag("--version", fmt::format("cudalab {}", kToolVersion));
  std::string config_help_only;  // --config is taken out before parsing (take_config)
  app.add_option("--config", config_help_only, "TOML presets for a class: a [lesson-name] section per lesson")
      ->type_name("FILE");
  app.require_subcommand(0, 1);

  CommonOptions common;
  std::vector<LessonCommand> lessons;
  for (const auto& entry : course()) {
    if (entry.make == nullptr) continue;
    LessonCommand cmd{&entry, entry.make(), nullptr};
    cmd.sub = app.add_subcommand(entry.slug, fmt::format("{:02d} · {} — {}", entry.number, entry.title, entry.summary));
    cmd.sub->alias(fmt::format("{:02d}", entry.number));
    cmd.sub->alias(std::to_string(entry.number));
    cmd.sub->footer(footer());
    add_common_options(*cmd.sub, common);
    add_lesson_options(*cmd.sub, *cmd.lesson);
    lessons.push_back(std::move(cmd));
  }

  auto* list = app.add_subcommand("list", "the lessons in course order");
  std::string list_lang;
  add_choice_option(*list, "--lang", list_lang, {"zh", "en"}, "language (default from LC_ALL/LANG)");
  auto* all = app.add_subcommand("all", "run every lesson in order, then a summary table");
  all->footer(footer());
  add_common_options(*all, common);

  // Live mode: `cudalab live 03 [flags]`; `cudalab 03 --live [flags]` is rewritten to it.
  std::string live_lesson;
  auto* live = app.add_subcommand("live", "run a lesson, then change its flags at a prompt and re-run in place");
  live->add_option("LESSON", live_lesson, "the lesson, by number or name")->required();
  live->allow_extras();
  live->footer(footer());

  std::string help_topic;
  auto* help = app.add_subcommand("help", "help for a lesson or command: cudalab help 03");
  help->add_option("TOPIC", help_topic, "a lesson (number or name) or a command");
  std::string shell;
  auto* completion = app.add_subcommand("completion", "print a shell completion script: cudalab completion bash");
  add_choice_option(*completion, "SHELL", shell, {"bash", "zsh", "fish"}, "the shell")->required();

  ShowOptions show_options;
  auto* show = app.add_subcommand("show", "render a saved run, or a lesson's reference run (show 03), without a GPU");
  add_show_options(*show, show_options);
  show->footer(footer());

  CompareOptions compare_options;
  auto* compare = app.add_subcommand("compare", "hold runs to a baseline metric by metric: compare 03 mine.json");
  add_compare_options(*compare, compare_options);
  compare->footer(footer());
  GradeOptions grade_options;
  auto* grade = app.add_subcommand("grade", "a class's runs in one table: grade submissions/");
  add_grade_options(*grade, grade_options);
  grade->footer(footer());

  try {
    std::vector<std::string> args = live_flag_to_subcommand(std::vector<std::string>(argv, argv + argc));
    const auto config_path = take_config(args);
    std::optional<PresetFile> presets;
    if (config_path) presets = read_presets(*config_path);
    PresetArgs preset;  // what the preset added to the command line, and from where
    const std::size_t at = command_index(args);
    if (presets && at > 0) {
      // The section of the command (or, for live, of its lesson) becomes flags after its word.
      std::size_t word = at;
      if (args[at] == "live" && at + 1 < args.size()) ++word;
      const std::vector<std::string> typed(args.begin() + static_cast<std::ptrdiff_t>(word) + 1, args.end());
      CLI::App* target = nullptr;
      std::string section;
      for (auto& cmd : lessons) {
        if (find_lesson(args[word]) == cmd.entry) target = cmd.sub, section = cmd.entry->slug;
      }
      if (target == nullptr && (args[word] == "show" || args[word] == "all")) {
        target = args[word] == "show" ? show : all;
        section = args[word];
      }
      if (target != nullptr) {
        preset = preset_args(*presets, section, *target, typed);
        args.insert(args.begin() + static_cast<std::ptrdiff_t>(word) + 1, preset.args.begin(), preset.args.end());
      }
    }
    try {
      parse_with_origins(app, std::vector<std::string>(args.begin() + 1, args.end()), preset);
    } catch (const CLI::ExtrasError& e) {
      throw UsageError(extras_message(app, args));
    }

    if (help->parsed()) return print_help(app, help_topic);
    if (completion->parsed()) {
      std::cout << completion_script(shell);
      return to_int(ExitCode::success);
    }
    if (common.print_config) {
      for (auto& cmd : lessons) {
        if (cmd.sub->parsed()) {
          std::cout << effective_config(*cmd.sub, preset);
          return to_int(ExitCode::success);
        }
      }
    }
    if (list->parsed()) return print_course_list(list_lang);
    if (live->parsed()) return start_live(live_lesson, live->remaining());
    if (show->parsed()) return show_saved_run(show_options);
    if (compare->parsed()) return run_compare(compare_options);
    if (grade->parsed()) return run_grade(grade_options);
    if (all->parsed()) {
      std::vector<LessonRun> runs;
      for (auto& cmd : lessons) {
        LessonRun run{cmd.entry, cmd.lesson.get(), {}};
        // Each lesson's own section applies to it alone: a bad one stops only that lesson.
        if (presets) run.preset_error = apply_lesson_preset(*presets, cmd);
        runs.push_back(run);
      }
      return run_all(runs, common);
    }
    for (auto& cmd : lessons) {
      if (cmd.sub->parsed()) return run_one(LessonRun{cmd.entry, cmd.lesson.get(), {}}, common);
    }
    print_course_list();
    std::cout << '\n'
              << tr(lang_from_environment(), fmt::format("start with  cudalab {:02d}        # or: cudalab {} --help",
                                                         course().front().number, course().front().slug))
              << '\n';
    return to_int(ExitCode::success);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << say(tr(lang, "cudalab: error: {}"), e.what(), lang);
    return to_int(ExitCode::usage);
  } catch (const UsageError& e) {
    std::cerr << say(tr(lang, "cudalab: error: {}"), e.what(), lang);
    return to_int(ExitCode::usage);
  } catch (const WaivedError& e) {
    std::cerr << say(tr(lang, "cudalab: waived: {}"), e.what(), lang);
    return to_int(ExitCode::waived);
  } catch (const InterruptedError&) {
    std::cerr << tr(lang, "cudalab: interrupted; everything was released") << '\n';
    return interrupt_exit_code();  // 130 after Ctrl-C, 143 after SIGTERM
  } catch (const RuntimeError& e) {
    std::cerr << say(tr(lang, "cudalab: CUDA error: {}"), e.what(), lang);
    return to_int(ExitCode::runtime);
  } catch (const std::exception& e) {
    std::cerr << "cudalab: internal error: " << e.what() << '\n';
    return to_int(ExitCode::runtime);
  }
}

}  // namespace cudalab
