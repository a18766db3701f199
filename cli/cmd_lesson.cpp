// A lesson run: `cudalab 03 [flags]` (or by name). One subcommand per built lesson, its flags
// bound to a Lesson object; the run stamps what every report carries and emits it once.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "cli/preset_merge.hpp"
#include "common/core/errors.hpp"
#include "common/queue/gpu_presence.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/phases.hpp"
#include "common/core/progress.hpp"
#include "common/core/text_format.hpp"
#include "common/core/version.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/gpu/launch_latch.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/preflight.hpp"
#include "common/report/integrity.hpp"
#include "common/report/predict.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// --predict: the lesson's questions, answered from --answers FILE or on the terminal, before
// anything is measured.
std::vector<Guess> ask_predictions(const LessonSetup& setup, const Invocation& inv) {
  if (!inv.flags.predict) return {};
  const auto questions = questions_for(inv.output.lang(), setup.entry->id());
  if (questions.empty()) {
    throw UsageError(fmt::format("--predict: lesson {:02d} asks no questions yet; try lesson 03 or 04", setup.entry->number));
  }
  if (!inv.flags.answers_path.empty()) return read_answers(inv.flags.answers_path, questions);
  if (!stdin_is_terminal()) throw UsageError("--predict: needs a terminal to ask on, or --answers FILE");
  return ask(questions, std::cin, std::cerr);
}

}  // namespace

std::string reference_hint(const CourseEntry* entry) {
  if (entry != nullptr) {
    return fmt::format("`cudalab show {:02d}` shows this lesson's run recorded on the lab GPU", entry->number);
  }
  return fmt::format("`cudalab show NN` ({:02d} to {:02d}) shows each lesson's run recorded on the lab GPU",
                     course().front().number, course().back().number);
}

// How long each lesson usually holds the GPU, from the turns its reference run recorded: the
// queue's estimate of a wait and its rule for a stuck turn read them.
TurnTimes recorded_turn_times() {
  TurnTimes times;
  for (const auto& entry : course()) {
    const auto text = reference_run(entry.id());
    if (!text) continue;
    try {
      for (const auto& run : parse_saved_runs(std::string(*text), entry.id())) {
        if (run.report.turn) times.by_lesson[entry.id()] = run.report.turn->held_s;
      }
    } catch (const UsageError&) {
      // a reference run this build cannot read gives no estimate; the queue still works
    }
  }
  return times;
}

CLI::App* add_lesson_subcommand(CLI::App& parent, const CourseEntry& entry, CommandSetup& setup, Command command) {
  setup.lesson_pool.push_back(LessonSetup{&entry, entry.make(), {}, {}});
  LessonSetup* pooled = &setup.lesson_pool.back();
  CLI::App* sub = parent.add_subcommand(entry.slug, fmt::format("{:02d} · {} — {}", entry.number, entry.title, entry.summary));
  for (const auto& name : entry.names()) {
    if (name != entry.slug) sub->alias(name);
  }
  sub->footer(help_footer());
  add_lesson_options(*sub, *pooled->lesson);
  std::vector<std::string> common = lesson_flag_names();
  if (command == Command::live) {  // live runs again and again: `cudalab 03 --submit` hands in one run
    for (const char* name : {"live", "submit"}) common.erase(std::find(common.begin(), common.end(), name));
  }
  add_common_options(*sub, setup.inv.flags, common);
  add_config_option(*sub, setup.config_path);
  sub->callback([&setup, pooled, sub, command] {
    setup.inv.command = command;
    setup.inv.lessons.clear();
    setup.inv.lessons.push_back(std::move(*pooled));
    setup.parsed = sub;
  });
  return sub;
}

void setup_lessons(CLI::App& app, CommandSetup& setup) {
  for (const auto& entry : course()) {
    if (entry.make != nullptr) add_lesson_subcommand(app, entry, setup, Command::lesson);
  }
}

int run_lesson_command(Invocation& inv) {
  if (inv.flags.print_config) {
    std::cout << effective_config(inv);
    return to_int(ExitCode::success);
  }
  LessonSetup& setup = inv.lesson();
  progress::enable(inv.output.progress);
  std::vector<Guess> guesses = ask_predictions(setup, inv);
  Report report;
  try {
    report = run_stamped_lesson(setup, inv);
  } catch (const NoGpuError& e) {
    throw NoGpuError(std::string(e.what()) + "; " + reference_hint(setup.entry));
  }
  report.guesses = std::move(guesses);
  emit_report(report, inv.output);
  return exit_code_for(report, inv.flags.strict);
}

}  // namespace cudalab
