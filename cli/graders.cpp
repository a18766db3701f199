#include "cli/graders.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/course.hpp"
#include "cli/flags.hpp"
#include "cli/help_format.hpp"
#include "cli/rerun.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/owned_fd.hpp"
#include "common/core/text_format.hpp"
#include "cli/class_folder.hpp"
#include "common/report/class_seal.hpp"
#include "common/grading/class_checks.hpp"
#include "common/grading/compare.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

double parse_tolerance(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  return std::stod(digits) / 100.0;  // tolerance_problem has accepted it
}

void add_table_format(CLI::App& sub, CommandSetup& setup, const std::vector<std::string>& forms) {
  std::string names;
  for (const auto& f : forms) names += (names.empty() ? "" : "|") + f;
  add_flag_options(sub, {{"format", FlagKind::choice, "output form", "text", forms, "Output", names}},
                   [setup, forms](const std::string&, const std::string& text) {
                     Message error = choice_problem(text, forms);
                     if (error.empty()) setup.inv.table_format = text;
                     return error;
                   });
  sub.add_flag("--bom", setup.inv.bom, "begin CSV with a UTF-8 byte-order mark, for spreadsheets that want one")
      ->group("Output");
  add_common_options(sub, setup.inv.flags, {"lang", "color"});
}

// The byte-order mark --bom asks for: only CSV takes one.
std::string byte_order_mark(const Invocation& inv) {
  if (!inv.bom) return {};
  if (inv.table_format != "csv") throw UsageError("--bom: only with --format csv");
  return "\xEF\xBB\xBF";
}

// A student's name as a file name: letters, digits and . _ - @ + only, not hidden, at most 64.
bool safe_file_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && name.front() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '@' || c == '+';
         });
}

// DIR/STUDENT.md for every student of the gradebook (0600, in a folder made 0700 when it is new;
// never through a link). A student whose name cannot be a file name is said on stderr.
void write_feedback(const Gradebook& book, const std::string& dir, Lang lang) {
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    throw UsageError(msg("--feedback: cannot make {dir}: {error}", arg("dir", printable_value(dir)), arg("error", errno_words(errno))));
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError(msg("--feedback: {dir} is not a folder", arg("dir", printable_value(dir))));
  }
  for (const auto& student : book.students) {
    if (!safe_file_name(student)) {
      std::cerr << tr(lang, msg("cudalab: grade --feedback: no file for '{student}': not a name a file can have",
                                arg("student", printable_value(student))))
                << '\n';
      continue;
    }
    const std::string path = dir + "/" + student + ".md";
    const OwnedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    const std::string text = render_feedback(book, student, lang);
    if (fd.get() < 0 || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      throw RuntimeError(msg("--feedback: cannot write {file}: {error}", arg("file", printable_value(path)), arg("error", errno_words(errno))));
    }
  }
}

}  // namespace

Message tolerance_problem(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  const bool plain = !digits.empty() && digits.size() <= 8 &&
                     std::all_of(digits.begin(), digits.end(),
                                 [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }) &&
                     std::count(digits.begin(), digits.end(), '.') <= 1 && digits != ".";
  if (!plain || std::stod(digits) > 1000) {
    return msg("'{value}' is not a percentage from 0% to 1000% (e.g. 15%)", arg("value", printable_value(text)));
  }
  return {};
}

std::vector<SavedRun> load_run_argument(const std::string& argument) {
  struct stat st {};
  if (::stat(argument.c_str(), &st) == 0) return read_saved_runs(argument);
  if (const CourseEntry* entry = find_course_entry(argument)) {
    const auto text = reference_run(entry->id());
    if (!text) {
      throw UsageError(msg("lesson {number} {slug} has no reference run yet",
                           arg("number", fmt::format("{:02d}", entry->number)), arg("slug", entry->slug)));
    }
    // The source as compare.hpp's source_words() reads it back: "built-in NN-lesson-name".
    auto runs = parse_saved_runs(std::string(*text), "built-in " + entry->id());
    for (auto& run : runs) run.built_in = true;
    return runs;
  }
  throw UsageError(msg("'{argument}' is neither a file nor a lesson; give a run saved with --json, or a lesson "
                       "(01 to {last}) for its reference run",
                       arg("argument", printable_value(argument)), arg("last", fmt::format("{:02d}", course().back().number))));
}

void setup_compare(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("compare", "hold runs to a baseline metric by metric: compare 03 mine.json");
  sub->footer(help_footer());
  sub->add_option("RUNS", setup.inv.runs,
                  "the baseline (a file, or a lesson for its reference run), then the runs to hold to it")
      ->required()
      ->expected(2, 1000)
      ->type_name("RUN");
  sub->add_option_function<std::string>(
         "--tolerance",
         [setup](const std::string& text) {
           const Message error = tolerance_problem(text);
           if (!error.empty()) throw UsageError(msg("--tolerance: {problem}", arg("problem", error)));
           setup.inv.tolerance = text;
         },
         "how far a metric may stray from the baseline, for every metric (e.g. 15%)")
      ->type_name("PERCENT");
  add_table_format(*sub, setup, {"text", "md", "csv"});
  sub->callback([setup, sub] {
    setup.inv.command = Command::compare;
    setup.parsed = sub;
  });
}

void setup_grade(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("grade", "a class's runs in one table and a gradebook: grade submissions/");
  sub->footer(help_footer());
  sub->add_option("DIR", setup.inv.grade_dir,
                  "a class's folder of runs (*.json, read with its subfolders); left out: the class's drop folder")
      ->type_name("DIR");
  sub->add_flag("--gradebook", setup.inv.gradebook, "only the gradebook: a row per student, a column per lesson")
      ->group("Output");
  sub->add_flag("--rerun", setup.inv.rerun,
                "compile and run every exercise source handed in, on this machine's GPU: the grade uses the re-run");
  sub->add_option_function<std::string>(
         "--feedback",
         [setup](const std::string& dir) {  // checked before anything is graded, as every output folder is
           const Message problem = output_dir_problem(dir);
           if (!problem.empty()) throw UsageError(msg("--feedback: {problem}", arg("problem", problem)));
           setup.inv.feedback_dir = dir;
         },
         "write a markdown feedback file per student into DIR")
      ->type_name("DIR")
      ->group("Output");
  add_table_format(*sub, setup, {"text", "md", "csv", "gradescope"});
  add_config_option(*sub, setup.config_path);
  sub->callback([setup, sub] {
    setup.inv.command = Command::grade;
    setup.parsed = sub;
  });
}

int run_compare(const Invocation& inv) {
  std::optional<double> tolerance;
  if (!inv.tolerance.empty()) tolerance = parse_tolerance(inv.tolerance);
  std::vector<SavedRun> baseline;
  std::vector<std::vector<SavedRun>> others;
  try {
    baseline = load_run_argument(inv.runs.front());
    if (baseline.size() != 1) {
      throw UsageError(msg("'{run}' holds several runs; the baseline must be one run",
                           arg("run", printable_value(inv.runs.front()))));
    }
    for (std::size_t i = 1; i < inv.runs.size(); ++i) others.push_back(load_run_argument(inv.runs[i]));
  } catch (const UsageError& e) {
    throw UsageError(msg("compare: {problem}", arg("problem", words_of(e))));
  }
  std::vector<Comparison> comparisons;
  for (const auto& file : others) {
    for (const auto& run : file) comparisons.push_back(compare_runs(baseline.front(), run, tolerance));
  }
  std::cout << byte_order_mark(inv)
            << render_comparisons(comparisons, parse_table_format(inv.table_format), inv.output.style.width,
                                  inv.output.lang());
  const bool all_hold = std::all_of(comparisons.begin(), comparisons.end(), [](const Comparison& c) { return c.passed(); });
  return to_int(all_hold ? ExitCode::success : ExitCode::verify_failed);
}

int run_grade(const Invocation& inv) {
  const std::string bom = byte_order_mark(inv);
  const ClassPolicy policy = class_policy(inv);
  // Gradescope sees one submission: without the assignment's lessons, one run would be full marks.
  if (inv.table_format == "gradescope" && policy.lessons.empty()) {
    throw UsageError("grade --format gradescope: give the assignment's lessons (lessons = [\"03\", ...] under [grade] in "
                     "--config): a submission is scored against them, and without them one run would score full marks");
  }
  const std::string folder = grade_folder(inv);
  ClassRuns runs = read_class_runs(folder);
  if (inv.table_format == "gradescope") {  // one student's submission, whatever its files are named
    for (auto& row : runs.rows) row.student = row.run != nullptr ? "submission" : "";
  }
  check_class_runs(runs.rows, policy);
  if (inv.rerun) rerun_exercises(runs.rows, folder, inv);
  // What the seals rest on, on stderr (stdout stays the table a script reads).
  if (!policy.class_seal) {
    std::cerr << tr(inv.output.lang(), "cudalab: grade: seals are not checked ([grade] seal = \"none\"): any student can forge a run that passes") << '\n';
  } else if (held_class_key_id().empty()) {
    std::cerr << tr(inv.output.lang(), msg("cudalab: grade: this cudalab holds no class key ({why}): no run can be shown sealed by the class",
                                           arg("why", class_key_problem())))
              << '\n';
  }
  const Gradebook book = make_gradebook(runs.rows, policy);
  const std::size_t width = inv.output.style.width;
  const Lang lang = inv.output.lang();
  if (inv.table_format == "gradescope") {
    std::cout << render_gradescope(runs.rows, book, lang);
  } else {
    const TableFormat format = parse_table_format(inv.table_format);
    std::cout << bom;
    if (inv.gradebook) {
      std::cout << render_gradebook(book, format, width, lang);
    } else {
      std::cout << render_grades(runs.rows, format, width, lang);
      if (format != TableFormat::csv && !book.students.empty()) std::cout << '\n' << render_gradebook(book, format, width, lang);
    }
  }
  if (!inv.feedback_dir.empty()) write_feedback(book, inv.feedback_dir, lang);
  const bool all_pass = std::all_of(runs.rows.begin(), runs.rows.end(), grade_passes);
  // A student on the roster without an assigned lesson is an unfinished grade: one line, and exit 1.
  const auto missing = book.missing();
  if (!missing.empty()) {
    std::string who;  // "alice (05), bob (03 05)": names and numbers, data
    for (const auto& [student, lessons] : missing) {
      std::string numbers;
      for (const int n : lessons) numbers += fmt::format("{}{:02d}", numbers.empty() ? "" : " ", n);
      who += fmt::format("{}{} ({})", who.empty() ? "" : ", ", student, numbers);
    }
    std::cerr << tr(lang, msg("cudalab: grade: {count} students on the roster lack an assigned lesson: {who}",
                              arg("count", missing.size()), arg("who", printable_value(who, 400))))
              << '\n';
  }
  return to_int(all_pass && missing.empty() ? ExitCode::success : ExitCode::verify_failed);
}

}  // namespace cudalab
