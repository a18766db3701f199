// `cudalab submit RUN.json`: a student hands a saved run in to the class's drop folder
// (cli/drop_folder.hpp). The run is checked first, so a student hears at once, not at grading,
// that the file is not a run of their own: unreadable, several runs, changed after cudalab wrote
// it, a copy of a built-in reference run, made by another user, or (where this cudalab holds the
// class key) not sealed by the class. What is handed in is the file's bytes as they are.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/drop_folder.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/text_format.hpp"
#include "common/grading/copies.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// The one run in the file, refused (UsageError, without the "submit: " prefix) when it is not
// one lesson's original run.
SavedRun run_to_hand_in(const std::string& path, const std::string& text) {
  std::vector<SavedRun> runs = parse_saved_runs(text, path);
  const std::string name = printable_value(path);
  if (runs.size() != 1) {
    throw UsageError(msg("'{file}' holds {count} runs; hand in one lesson's run, saved with `cudalab NN --json FILE`",
                         arg("file", name), arg("count", runs.size())));
  }
  const SavedRun& run = runs.front();
  if (run.integrity.state == Integrity::modified) {
    throw UsageError(msg("'{file}' was changed after cudalab wrote it ({why}); hand in the run as cudalab saved it",
                         arg("file", name), arg("why", run.integrity.describe())));
  }
  if (const auto copy = copied_reference(run.report)) {
    throw UsageError(msg("'{file}' is a copy of the built-in reference run {reference} ({mark}); hand in a run of your own",
                         arg("file", name), arg("reference", copy->reference),
                         arg("mark", Message(copy->mark))));  // one of shared_mark's three phrases: words
  }
  // A run the student did not make never passes: say so now, not at grading.
  if (run.report.provenance && run.report.provenance->uid != static_cast<long long>(::geteuid())) {
    throw UsageError(msg("'{file}' was made by {maker}, not by you; hand in a run of your own", arg("file", name),
                         arg("maker", printable_value(run.report.provenance->user))));
  }
  // This cudalab holds the class key: a run it cannot show sealed by the class would fail too.
  if (!held_class_key_id().empty() && !run.class_seal.sealed()) {
    throw UsageError(msg("'{file}' is {seal}; hand in a run the class's cudalab made", arg("file", name),
                         arg("seal", run.class_seal.describe())));
  }
  return std::move(runs.front());
}

}  // namespace

void setup_submit(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("submit", "hand a saved run in to the class's drop folder: submit mine.json");
  sub->footer(help_footer());
  sub->add_option_function<std::string>(
         "RUN", [setup](const std::string& run) { setup.inv.runs = {run}; },
         "a run saved with --json; it goes to $CUDALAB_CLASS_DIR, or to [grade] drop of --config")
      ->required()
      ->type_name("RUN");
  add_common_options(*sub, setup.inv.flags, {"lang", "color"});
  add_config_option(*sub, setup.config_path);
  sub->callback([setup, sub] {
    setup.inv.command = Command::submit;
    setup.parsed = sub;
  });
}

int run_submit(const Invocation& inv) {
  const std::string& path = inv.runs.front();
  const std::string folder = drop_folder_path(inv.class_settings());
  try {
    const Message unsafe = check_drop_folder(folder);
    if (!unsafe.empty()) throw UsageError(unsafe);
    const std::string text = read_regular_file(path, kMaxRunFileBytes, "a saved run");
    const SavedRun run = run_to_hand_in(path, text);
    const std::string name = hand_in(folder, text, run.report);
    std::cout << tr(inv.output.lang(), handed_in_line(run.report, name, folder)) << '\n';
  } catch (const UsageError& e) {
    throw UsageError(msg("submit: {problem}", arg("problem", words_of(e))));
  }
  return to_int(ExitCode::success);
}

}  // namespace cudalab
