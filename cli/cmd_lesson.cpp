// A lesson run: `cudalab 03 [flags]` (or by name). One subcommand per built lesson, its flags
// bound to a Lesson object; the run stamps what every report carries and emits it once.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "cli/predict_first.hpp"
#include "cli/preset_merge.hpp"
#include "cli/ranks.hpp"
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
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

Message reference_hint(const CourseEntry* entry, bool predicting) {
  if (entry != nullptr && predicting) {
    return msg("`cudalab show {number} --predict` asks the same questions, then shows this lesson's run recorded "
               "on the lab GPU",
               arg("number", fmt::format("{:02d}", entry->number)));
  }
  if (entry != nullptr) {
    return msg("`cudalab show {number}` shows this lesson's run recorded on the lab GPU",
               arg("number", fmt::format("{:02d}", entry->number)));
  }
  return msg("`cudalab show NN` ({first} to {last}) shows each lesson's run recorded on the lab GPU",
             arg("first", fmt::format("{:02d}", course().front().number)),
             arg("last", fmt::format("{:02d}", course().back().number)));
}

CLI::App* add_lesson_subcommand(CLI::App& parent, const CourseEntry& entry, CommandSetup& setup, Command command) {
  setup.lesson_pool.push_back(LessonSetup{&entry, entry.make(), {}, {}, {}});
  LessonSetup* pooled = &setup.lesson_pool.back();
  CLI::App* sub = parent.add_subcommand(entry.slug, fmt::format("{:02d} · {} — {}", entry.number, entry.title.en, entry.summary.en));
  for (const auto& name : entry.names()) {
    if (name != entry.slug) sub->alias(name);
  }
  sub->footer(help_footer());
  add_lesson_options(*sub, *pooled->lesson);
  std::vector<std::string> common = lesson_flag_names(asks_predictions(entry));
  if (command == Command::live) {  // live runs again and again: `cudalab 03 --submit` hands in one run
    for (const char* name : {"live", "submit"}) common.erase(std::find(common.begin(), common.end(), name));
  }
  add_common_options(*sub, setup.inv.flags, common);
  add_config_option(*sub, setup.config_path);
  sub->callback([setup, pooled, sub, command] {
    setup.inv.command = command;
    setup.inv.lessons.clear();
    setup.inv.lessons.push_back(std::move(*pooled));
    setup.parsed = sub;
  });
  return sub;
}

void setup_lessons(CLI::App& app, CommandSetup& setup) {
  for (const auto& entry : course()) add_lesson_subcommand(app, entry, setup, Command::lesson);
}

int run_lesson_command(Invocation& inv) {
  if (inv.flags.print_config) {
    std::cout << effective_config(inv);
    return to_int(ExitCode::success);
  }
  LessonSetup& setup = inv.lesson();
  // One process per GPU (cli/ranks.hpp): `--ranks N` starts the ranks and reports nothing itself;
  // under a launcher this process is one rank, and rank 0 reports for all of them.
  const std::optional<RankEnvironment> rank = rank_of_process(setup, inv);
  const bool reports = !rank || rank->rank == 0;
  std::vector<Guess> guesses;
  Report report;
  try {
    if (!rank && setup.lesson->ranks_to_start() > 0) return launch_ranks(setup, inv);
    progress::enable(inv.output.progress && reports);
    // Answers from a file are read before the GPU is looked for: a bad file is a usage error (2)
    // on any machine. Questions asked at a terminal come after it, so that nobody answers for a
    // run that cannot happen.
    const bool from_file = !inv.flags.answers_path.empty();
    if (reports && from_file) guesses = ask_predictions(*setup.entry, inv.flags, inv.output.lang());
    if (inv.flags.predict && reports && !from_file) (void)device_count();
    if (reports && !from_file) guesses = ask_predictions(*setup.entry, inv.flags, inv.output.lang());
    report = run_stamped_lesson(setup, inv);
  } catch (const NoGpuError& e) {
    throw NoGpuError(msg("{problem}; {hint}", arg("problem", words_of(e)),
                         arg("hint", reference_hint(setup.entry, inv.flags.predict))));
  }
  if (!reports) return to_int(ExitCode::success);
  if (!guesses.empty()) {
    report.guesses = std::move(guesses);
    seal(report);  // again: the digest covers the answers too
  }
  emit_report(report, inv.output);
  return exit_code_for(report, inv.flags.strict);
}

}  // namespace cudalab
