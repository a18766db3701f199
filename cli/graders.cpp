#include "graders.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "cli/options.hpp"
#include "common/report/compare.hpp"
#include "common/report/reference_runs.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

const CourseEntry* lesson_named(const std::string& word) {
  for (const auto& e : course()) {
    if (word == e.slug || word == std::to_string(e.number) || word == fmt::format("{:02d}", e.number)) return &e;
  }
  return nullptr;
}

// "15%" or "15" (percent), 0 to 1000.
double parse_tolerance(const std::string& text) {
  std::string digits = text;
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  const bool plain = !digits.empty() && digits.size() <= 8 &&
                     std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }) &&
                     std::count(digits.begin(), digits.end(), '.') <= 1 && digits != ".";
  const double percent = plain ? std::stod(digits) : -1.0;
  if (percent < 0 || percent > 1000) {
    throw UsageError("--tolerance: '" + printable(text) + "' is not a percentage from 0% to 1000% (e.g. 15%)");
  }
  return percent / 100.0;
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

std::vector<SavedRun> load_run_argument(const std::string& argument) {
  struct stat st {};
  if (::stat(argument.c_str(), &st) == 0) return read_saved_runs(argument);
  if (const CourseEntry* entry = lesson_named(argument)) {
    const std::string name = fmt::format("{:02d}-{}", entry->number, entry->slug);
    const auto text = reference_run(name);
    if (!text) throw UsageError(fmt::format("lesson {:02d} {} has no reference run yet", entry->number, entry->slug));
    return parse_saved_runs(std::string(*text), "built-in " + name);
  }
  throw UsageError(fmt::format("'{}' is neither a file nor a lesson; give a run saved with --json, or a lesson "
                               "(01 to {:02d}) for its reference run",
                               printable(argument), course().back().number));
}

void add_compare_options(CLI::App& compare, CompareOptions& o) {
  compare.add_option("RUNS", o.runs, "the baseline (a file, or a lesson for its reference run), then the runs to hold to it")
      ->required()
      ->expected(2, 1000)
      ->type_name("RUN");
  compare.add_option("--tolerance", o.tolerance, "how far a metric may stray from the baseline, for every metric (e.g. 15%)")
      ->type_name("PERCENT");
  add_choice_option(compare, "--format", o.format, {"text", "md", "csv"}, "output form");
}

int run_compare(const CompareOptions& o) {
  std::optional<double> tolerance;
  if (!o.tolerance.empty()) tolerance = parse_tolerance(o.tolerance);
  std::vector<SavedRun> baseline;
  std::vector<std::vector<SavedRun>> others;
  try {
    baseline = load_run_argument(o.runs.front());
    if (baseline.size() != 1) throw UsageError("'" + printable(o.runs.front()) + "' holds several runs; the baseline must be one run");
    for (std::size_t i = 1; i < o.runs.size(); ++i) others.push_back(load_run_argument(o.runs[i]));
  } catch (const UsageError& e) {
    throw UsageError(std::string("compare: ") + e.what());
  }
  std::vector<Comparison> comparisons;
  for (const auto& file : others) {
    for (const auto& run : file) comparisons.push_back(compare_runs(baseline.front(), run, tolerance));
  }
  std::cout << render_comparisons(comparisons, parse_table_format(o.format), terminal_width());
  const bool all_hold = std::all_of(comparisons.begin(), comparisons.end(), [](const Comparison& c) { return c.passed(); });
  return to_int(all_hold ? ExitCode::success : ExitCode::verify_failed);
}

void add_grade_options(CLI::App& grade, GradeOptions& o) {
  grade.add_option("DIR", o.dir, "a folder of submitted runs (*.json, each saved with --json)")->required()->type_name("DIR");
  add_choice_option(grade, "--format", o.format, {"text", "md", "csv"}, "output form");
}

int run_grade(const GradeOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) throw UsageError("grade: '" + printable(o.dir) + "' is not a directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(o.dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  if (ec) throw UsageError("grade: cannot read '" + printable(o.dir) + "': " + ec.message());
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
  if (rows.empty()) throw UsageError("grade: '" + printable(o.dir) + "' holds no .json files");
  std::cout << render_grades(rows, parse_table_format(o.format), terminal_width());
  const bool all_pass = std::all_of(rows.begin(), rows.end(), grade_passes);
  return to_int(all_pass ? ExitCode::success : ExitCode::verify_failed);
}

}  // namespace cudalab
