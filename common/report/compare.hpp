// Runs side by side, for instructors and graders: `cudalab compare A B...` holds each run B to a
// baseline A metric by metric; `cudalab grade DIR` puts a class's submitted runs in one table.
// Both are pure functions of saved runs (report_json.hpp, SavedRun), so they work without a GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/report/report_json.hpp"

namespace cudalab {

enum class TableFormat { text, md, csv };
TableFormat parse_table_format(const std::string& text);  // "text" | "md" | "csv"

struct MetricComparison {
  std::string key;
  std::string unit;
  std::optional<double> a, b;  // medians; nullopt when that run has no such metric
  double tolerance = 0;        // relative: within when |b/a - 1| <= tolerance
  bool headline = false;       // a headline metric: out of tolerance fails the comparison

  std::optional<double> ratio() const;
  bool within() const;  // both present and within tolerance
};

struct CheckComparison {
  CheckKind kind = CheckKind::verify;
  std::string key;
  std::optional<bool> a, b;  // nullopt when that run has no such check
};

struct ParamChange {
  std::string name, a, b;
};

struct Comparison {
  const SavedRun* a = nullptr;  // the baseline
  const SavedRun* b = nullptr;
  std::vector<ParamChange> params;       // only the params that differ
  std::vector<MetricComparison> metrics;  // every metric of either run, A's order first
  std::vector<CheckComparison> checks;    // every check of either run

  // Why B does not hold against A, one short phrase each: a failed verify check, a run that was
  // modified after it was made, a headline metric out of tolerance or missing. Empty: it holds.
  std::vector<std::string> failures() const;
  bool passed() const { return failures().empty(); }
};

// B against A. Each metric's tolerance is `tolerance_override` when given; otherwise the lesson's
// (Report::compare_tolerance_of, from A), widened to the spread either run measured for it: a
// median known only to within its own run's noise cannot be held tighter than that.
// Throws UsageError when the runs are of different lessons.
Comparison compare_runs(const SavedRun& a, const SavedRun& b, std::optional<double> tolerance_override);

std::string render_comparisons(const std::vector<Comparison>& comparisons, TableFormat format, std::size_t width);

// One row of `cudalab grade`: a submitted run, or a file that is not one.
struct GradeRow {
  std::string file;
  const SavedRun* run = nullptr;  // null when the file could not be read
  std::string problem;            // then why, one line
};

// Text, markdown or CSV: file, lesson, device, headline metrics, verify and expect verdicts and
// whether the run is intact. Then one line: how many runs pass (readable, intact or unsealed,
// every verify check passed).
std::string render_grades(const std::vector<GradeRow>& rows, TableFormat format, std::size_t width);
bool grade_passes(const GradeRow& row);

}  // namespace cudalab
