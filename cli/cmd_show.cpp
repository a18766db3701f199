// `cudalab show RUN`: a saved run (or a lesson's built-in reference run) rendered exactly as the
// live run rendered it, without a GPU.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/graders.hpp"
#include "cli/help_format.hpp"
#include "cli/predict_first.hpp"
#include "cli/preset_merge.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/grading/compare.hpp"
#include "common/grading/copies.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// `show 03 --predict`: the lesson's questions first, then its recorded run with the answers set
// against what it measured. The recorded run is not resealed: the answers are not part of it.
void ask_before_showing(std::vector<SavedRun>& runs, const Invocation& inv) {
  if (runs.size() != 1) throw UsageError("--predict: show one run at a time to predict it");
  if (inv.output.form != OutputPlan::Form::text) throw UsageError("--predict: only with the text form");
  Report& report = runs.front().report;
  const CourseEntry* lesson = find_course_entry(std::to_string(report.lesson_number));
  if (lesson == nullptr) {
    throw UsageError(msg("--predict: this build has no lesson {number} to ask its questions",
                         arg("number", fmt::format("{:02d}", report.lesson_number))));
  }
  report.guesses = ask_predictions(*lesson, inv.flags, inv.output.lang());
}

}  // namespace

void setup_show(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("show", "render a saved run, or a lesson's reference run (show 03), without a GPU");
  sub->footer(help_footer());
  sub->add_option_function<std::string>(
         "RUN", [setup](const std::string& run) { setup.inv.runs = {run}; },
         "a run saved with --json, or a lesson (03, or its name) for its reference run")
      ->required()
      ->type_name("RUN");
  add_common_options(*sub, setup.inv.flags, show_flag_names());
  add_config_option(*sub, setup.config_path);
  sub->callback([setup, sub] {
    setup.inv.command = Command::show;
    setup.parsed = sub;
  });
}

int run_show(const Invocation& inv) {
  if (inv.flags.print_config) {
    std::cout << effective_config(inv);
    return to_int(ExitCode::success);
  }
  // The grader forms say on stdout when a run is not an original, intact run, so that a diff
  // against the reference is never clean (copies.hpp, integrity_line).
  const bool grader_form = inv.output.form == OutputPlan::Form::stable || inv.output.form == OutputPlan::Form::portable;
  std::vector<SavedRun> runs;
  try {
    runs = load_run_argument(inv.runs.front());
  } catch (const UsageError& e) {
    if (grader_form) std::cout << unreadable_integrity_line(e.what()) << std::endl;
    throw UsageError(msg("show: {problem}", arg("problem", words_of(e))));
  }
  if (inv.flags.predict) ask_before_showing(runs, inv);
  OutputPlan one = inv.output;
  one.trace_file.clear();  // one trace file for every run, below
  std::vector<Report> reports;
  int exit_code = to_int(ExitCode::success);
  for (auto& run : runs) {
    if (grader_form) {
      const std::string line = integrity_line(run, run.built_in);
      if (!line.empty()) std::cout << line << '\n';
      // A file's run says whether the class sealed it, so no forgery diffs clean (class_seal.hpp).
      if (!run.built_in) std::cout << "seal " << run.class_seal.describe().en() << '\n';
    }
    emit_report(run.report, one, /*recorded=*/true);
    const Lang lang = inv.output.lang();
    if (run.integrity.state != Integrity::intact) {  // modified, or unsealed: said plainly, with its devices
      std::string devices;  // "NVIDIA H100 + NVIDIA H100": names, data
      for (const auto& d : run.report.devices) devices += (devices.empty() ? "" : " + ") + d.name;
      const Message state = run.integrity.state == Integrity::unsealed
                                ? Message("unsealed: recorded before runs carried a digest")
                                : run.integrity.describe();
      // "built-in 01-device-query" (words around a name), or the file named on the command line.
      const MessageArg source = arg("source", run.built_in ? source_words(run) : verbatim(printable_value(run.source)));
      const Message line = devices.empty() ? msg("cudalab: show: {source}: {integrity}", source, arg("integrity", state))
                                           : msg("cudalab: show: {source}: {integrity} (recorded on {devices})", source,
                                                 arg("integrity", state), arg("devices", printable_value(devices, 200)));
      std::cerr << tr(lang, line) << '\n';  // one line, as every message on stderr: a grader's script reads it
    } else if (!run.built_in) {  // intact: whether the class sealed it, in the same one line
      std::cerr << tr(lang, msg("cudalab: show: {source}: {seal}", arg("source", verbatim(printable_value(run.source))),
                                arg("seal", run.class_seal.describe())))
                << '\n';
    }
    // Just as the live run did: a failed verify check (or a run edited after it was made) fails.
    if (!run.report.verify_passed() || run.integrity.state == Integrity::modified) {
      exit_code = to_int(ExitCode::verify_failed);
    }
    reports.push_back(std::move(run.report));
  }
  emit_trace(reports, inv.output);
  return exit_code;
}

}  // namespace cudalab
