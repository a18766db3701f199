// `cudalab all`: every built lesson in course order, then one summary table. A lesson this
// machine cannot run is skipped with one line; the others count.
#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "cli/help_format.hpp"
#include "cli/preset_merge.hpp"
#include "common/core/errors.hpp"
#include "common/core/progress.hpp"
#include "common/gpu/device.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/report/render_summary.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

TourForm tour_form(const OutputPlan& plan) {
  if (plan.form == OutputPlan::Form::portable) return TourForm::portable;
  if (plan.form == OutputPlan::Form::stable) return TourForm::stable;
  return TourForm::text;
}

// The tour as one lesson of it runs: with its own copy of the common flags (the tour's, then its
// preset section's) and the output they make; the JSON and trace files are written once, at the end.
Invocation one_lesson_of(const LessonSetup& setup) {
  Invocation one;
  one.command = Command::all;
  one.flags = setup.tour.flags;
  one.flag_origins = setup.tour.origins;
  one.output = plan_output(one.flags);
  one.output.json_file.clear();
  one.output.trace_file.clear();
  return one;
}

// One lesson of the tour; "" when it ran (its report appended), else why it did not.
std::string run_one_of_all(const LessonSetup& setup, const Invocation& inv, std::vector<Report>& reports,
                           int& exit_code) {
  const std::string where = fmt::format("lesson {:02d} {}", setup.entry->number, setup.entry->slug);
  const Lang lang = inv.output.lang();
  if (!setup.preset_error.empty()) {
    std::cerr << failure_line(usage_failure(setup.preset_error), lang, where) << '\n';
    exit_code = std::max(exit_code, to_int(ExitCode::usage));
    return "preset error";
  }
  try {
    const Invocation one = one_lesson_of(setup);
    Report report = run_stamped_lesson(setup, one);
    if (inv.output.form != OutputPlan::Form::json) {
      emit_report(report, one.output);
      std::cout << '\n';
    }
    exit_code = std::max(exit_code, exit_code_for(report, one.flags.strict));
    reports.push_back(std::move(report));
    return {};
  } catch (const QueueTimeoutError&) {
    throw;  // the GPU stays busy: every lesson after this one would wait as long again
  } catch (...) {
    const Failure failure = failure_of(std::current_exception());
    // Ctrl-C ends the tour; a bug too. A lesson this machine cannot run (two GPUs wanted, one
    // found) is skipped and the others count; any other failure counts against the exit code.
    if (failure.internal || failure.interrupted || failure.exit_code == to_int(ExitCode::usage)) throw;
    std::cerr << failure_line(failure, lang, where) << '\n';
    if (failure.exit_code == to_int(ExitCode::waived)) return "waived";
    exit_code = std::max(exit_code, failure.exit_code);
    return "runtime error";
  }
}

}  // namespace

void setup_all(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("all", "run every lesson in order, then a summary table");
  sub->footer(help_footer());
  add_common_options(*sub, setup.inv.flags, all_flag_names());
  add_config_option(*sub, setup.config_path);
  sub->callback([setup, sub] {
    setup.inv.command = Command::all;
    setup.inv.lessons.clear();
    for (const auto& entry : course()) setup.inv.lessons.push_back(LessonSetup{&entry, entry.make(), {}, {}, {}});
    setup.parsed = sub;
  });
}

int run_all(Invocation& inv) {
  if (inv.flags.print_config) {
    std::cout << effective_config(inv);
    // A lesson whose section was refused is listed as such, and the preset is still wrong: exit 2.
    const bool refused = std::any_of(inv.lessons.begin(), inv.lessons.end(),
                                     [](const LessonSetup& s) { return !s.preset_error.empty(); });
    return to_int(refused ? ExitCode::usage : ExitCode::success);
  }
  progress::enable(inv.output.progress);
  try {
    (void)device_count();  // no GPU: one waived line, not one per lesson
  } catch (const NoGpuError& e) {
    throw NoGpuError(msg("{problem}; {hint}", arg("problem", words_of(e)), arg("hint", reference_hint(nullptr))));
  }
  std::vector<Report> reports;
  std::vector<TourRow> rows;
  int exit_code = to_int(ExitCode::success);
  for (const auto& setup : inv.lessons) {
    const std::string failure = run_one_of_all(setup, inv, reports, exit_code);
    rows.push_back({setup.entry->number, setup.entry->slug, nullptr, failure});
  }
  emit_reports_json(reports, inv.output);
  emit_trace(reports, inv.output);
  if (inv.output.form == OutputPlan::Form::json) return exit_code;
  std::size_t r = 0;
  for (auto& row : rows) {
    if (row.skipped.empty()) row.report = &reports[r++];
  }
  std::cout << render_tour_summary(rows, tour_form(inv.output), inv.output.style.width, inv.output.lang());
  return exit_code;
}

}  // namespace cudalab
