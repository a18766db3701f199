// Builds the CLI11 app: one subcommand per built lesson (by name and by number), plus list,
// all and show; maps every way a run can end to one line and an exit code.
#include "app.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>
#include <memory>

#include <fmt/format.h>

#include "commands.hpp"
#include "course.hpp"
#include "common/bench/errors.hpp"
#include "common/bench/options.hpp"
#include "output.hpp"
#include "common/bench/version.hpp"

namespace cudalab {

namespace {

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
  return fmt::format("unknown lesson or command '{}'; run `cudalab list` (lessons 01 to {:02d})", word,
                     course().back().number);
}

// `--config FILE` belongs to the main app (it fills in the lesson's [section]), but instructors
// type it after the lesson too: move it to the front so both orders work.
std::vector<std::string> config_first(int argc, const char* const* argv) {
  std::vector<std::string> front, rest;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--config" && i + 1 < argc) {
      front.push_back(arg);
      front.push_back(argv[++i]);
    } else if (arg.rfind("--config=", 0) == 0) {
      front.push_back(arg);
    } else {
      rest.push_back(arg);
    }
  }
  front.insert(front.end(), rest.begin(), rest.end());
  std::reverse(front.begin(), front.end());  // CLI11 parses a vector from the back
  return front;
}

struct LessonCommand {
  const CourseEntry* entry;
  std::unique_ptr<Lesson> lesson;
  CLI::App* sub;
};

}  // namespace

int run_cli(int argc, const char* const* argv) {
  CLI::App app("cudalab — a hands-on lab for GPU concurrency: streams, pinned memory, copy/compute "
               "overlap, priorities, host callbacks and CUDA Graphs.",
               "cudalab");
  app.footer(footer());
  app.set_version_flag("--version", fmt::format("cudalab {}", kToolVersion));
  app.set_config("--config", "", "TOML presets for a class: a [lesson-name] section per lesson")
      ->type_name("FILE");
  app.allow_config_extras(CLI::config_extras_mode::error);
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
    cmd.lesson->add_options(*cmd.sub);
    lessons.push_back(std::move(cmd));
  }

  auto* list = app.add_subcommand("list", "the lessons in course order");
  auto* all = app.add_subcommand("all", "run every lesson in order, then a summary table");
  all->footer(footer());
  add_common_options(*all, common);

  ShowOptions show_options;
  auto* show = app.add_subcommand("show", "render a saved run (RUN.json) without a GPU");
  add_show_options(*show, show_options);
  show->footer(footer());

  try {
    try {
      app.parse(config_first(argc, argv));
    } catch (const CLI::ExtrasError& e) {
      // `cudalab 09`, `cudalab callbacks` before it is built: say what exists instead.
      const auto extras = app.remaining();
      if (app.get_subcommands().empty() && !extras.empty() && extras.front().rfind("-", 0) != 0) {
        throw UsageError(unknown_command_message(extras.front()));
      }
      throw;
    }

    if (list->parsed()) return print_course_list();
    if (show->parsed()) return show_saved_run(show_options);
    if (all->parsed()) {
      std::vector<LessonRun> runs;
      for (auto& cmd : lessons) runs.push_back(LessonRun{cmd.entry, cmd.lesson.get()});
      return run_all(runs, common);
    }
    for (auto& cmd : lessons) {
      if (cmd.sub->parsed()) return run_one(LessonRun{cmd.entry, cmd.lesson.get()}, common);
    }
    print_course_list();
    std::cout << "\nstart with  cudalab 01        # or: cudalab device-query --help\n";
    return to_int(ExitCode::success);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ConfigError& e) {
    std::cerr << "cudalab: error: --config " << app.get_config_ptr()->as<std::string>() << ": " << e.what()
              << " (a [lesson-name] section may set only that lesson's flags)\n";
    return to_int(ExitCode::usage);
  } catch (const CLI::ParseError& e) {
    std::cerr << "cudalab: error: " << e.what() << '\n';
    return to_int(ExitCode::usage);
  } catch (const UsageError& e) {
    std::cerr << "cudalab: error: " << e.what() << '\n';
    return to_int(ExitCode::usage);
  } catch (const WaivedError& e) {
    std::cerr << "cudalab: waived: " << e.what() << '\n';
    return to_int(ExitCode::waived);
  } catch (const InterruptedError&) {
    std::cerr << "cudalab: interrupted; everything was released\n";
    return to_int(ExitCode::interrupted);
  } catch (const RuntimeError& e) {
    std::cerr << "cudalab: CUDA error: " << e.what() << '\n';
    return to_int(ExitCode::runtime);
  } catch (const std::exception& e) {
    std::cerr << "cudalab: internal error: " << e.what() << '\n';
    return to_int(ExitCode::runtime);
  }
}

}  // namespace cudalab
