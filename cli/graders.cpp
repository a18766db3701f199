#include "cli/graders.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/course.hpp"
#include "cli/flags.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/compare.hpp"
#include "common/report/reference_runs.hpp"

namespace cudalab {

namespace {

double parse_tolerance(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  return std::stod(digits) / 100.0;  // check_tolerance has accepted it
}

void add_table_format(CLI::App& sub, CommandSetup& setup) {
  add_flag_options(sub, {{"format", FlagKind::choice, "output form", "text", {"text", "md", "csv"}, "Output", "text|md|csv"}},
                   [&setup](const std::string&, const std::string& text) {
                     std::string error = check_choice(text, {"text", "md", "csv"});
                     if (error.empty()) setup.inv.table_format = text;
                     return error;
                   });
  add_common_options(sub, setup.inv.flags, {"lang", "color"});
}

// A reader's message names the file by the path it was given; the grade row already names it, so
// the reason says it by its short name only.
std::string with_short_name(std::string message, const std::string& path, const std::string& name) {
  const std::string full = printable(path);
  for (std::size_t at = message.find(full); at != std::string::npos; at = message.find(full, at + name.size())) {
    message.replace(at, full.size(), name);
  }
  return message;
}

}  // namespace

std::string check_tolerance(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  const bool plain = !digits.empty() && digits.size() <= 8 &&
                     std::all_of(digits.begin(), digits.end(),
                                 [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }) &&
                     std::count(digits.begin(), digits.end(), '.') <= 1 && digits != ".";
  if (!plain || std::stod(digits) > 1000) {
    return "'" + printable_value(text) + "' is not a percentage from 0% to 1000% (e.g. 15%)";
  }
  return {};
}

std::vector<SavedRun> load_run_argument(const std::string& argument) {
  struct stat st {};
  if (::stat(argument.c_str(), &st) == 0) return read_saved_runs(argument);
  if (const CourseEntry* entry = find_course_entry(argument)) {
    const auto text = reference_run(entry->id());
    if (!text) throw UsageError(fmt::format("lesson {:02d} {} has no reference run yet", entry->number, entry->slug));
    return parse_saved_runs(std::string(*text), "built-in " + entry->id());
  }
  throw UsageError(fmt::format("'{}' is neither a file nor a lesson; give a run saved with --json, or a lesson "
                               "(01 to {:02d}) for its reference run",
                               printable_value(argument), course().back().number));
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
         [&setup](const std::string& text) {
           const std::string error = check_tolerance(text);
           if (!error.empty()) throw CLI::ValidationError("--tolerance", error);
           setup.inv.tolerance = text;
         },
         "how far a metric may stray from the baseline, for every metric (e.g. 15%)")
      ->type_name("PERCENT");
  add_table_format(*sub, setup);
  sub->callback([&setup, sub] {
    setup.inv.command = Command::compare;
    setup.parsed = sub;
  });
}

void setup_grade(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("grade", "a class's runs in one table: grade submissions/");
  sub->footer(help_footer());
  sub->add_option("DIR", setup.inv.grade_dir, "a folder of submitted runs (*.json, each saved with --json)")
      ->required()
      ->type_name("DIR");
  add_table_format(*sub, setup);
  sub->callback([&setup, sub] {
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
      throw UsageError("'" + printable_value(inv.runs.front()) + "' holds several runs; the baseline must be one run");
    }
    for (std::size_t i = 1; i < inv.runs.size(); ++i) others.push_back(load_run_argument(inv.runs[i]));
  } catch (const UsageError& e) {
    throw UsageError(std::string("compare: ") + e.what());
  }
  std::vector<Comparison> comparisons;
  for (const auto& file : others) {
    for (const auto& run : file) comparisons.push_back(compare_runs(baseline.front(), run, tolerance));
  }
  std::cout << render_comparisons(comparisons, parse_table_format(inv.table_format), inv.output.style.width,
                                  inv.output.lang());
  const bool all_hold = std::all_of(comparisons.begin(), comparisons.end(), [](const Comparison& c) { return c.passed(); });
  return to_int(all_hold ? ExitCode::success : ExitCode::verify_failed);
}

int run_grade(const Invocation& inv) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string dir = inv.grade_dir;
  if (!fs::is_directory(dir, ec)) throw UsageError("grade: '" + printable_value(dir) + "' is not a directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  if (ec) throw UsageError("grade: cannot read '" + printable_value(dir) + "': " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<std::vector<SavedRun>> runs(files.size());
  std::vector<GradeRow> rows;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string name = printable(fs::path(files[i]).filename().string());
    try {
      runs[i] = read_saved_runs(files[i]);
    } catch (const UsageError& e) {
      rows.push_back({name, nullptr, with_short_name(e.what(), files[i], name)});
      continue;
    }
    for (std::size_t k = 0; k < runs[i].size(); ++k) {
      rows.push_back({runs[i].size() == 1 ? name : fmt::format("{} [{}]", name, k + 1), &runs[i][k], {}});
    }
  }
  if (rows.empty()) throw UsageError("grade: '" + printable_value(dir) + "' holds no .json files");
  std::cout << render_grades(rows, parse_table_format(inv.table_format), inv.output.style.width, inv.output.lang());
  const bool all_pass = std::all_of(rows.begin(), rows.end(), grade_passes);
  return to_int(all_pass ? ExitCode::success : ExitCode::verify_failed);
}

}  // namespace cudalab
