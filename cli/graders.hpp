// The commands for graders and GPU-less students: `compare` (runs side by side against a
// baseline), `grade` (a class's folder of runs in one table), and how every command that reads
// runs finds them: a file, or a lesson's built-in reference run (`cudalab show 03`).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/report/report_json.hpp"

namespace cudalab {

// A run named on the command line: a file saved with --json, or a lesson (03, 3, or the lesson's
// name) for its reference run built into the binary. Throws UsageError, one line, when it is neither.
std::vector<SavedRun> load_run_argument(const std::string& argument);

struct CompareOptions {
  std::vector<std::string> runs;  // the baseline first
  std::string tolerance;          // "15%": overrides every metric's own tolerance
  std::string format = "text";
};
void add_compare_options(CLI::App& compare, CompareOptions& options);
int run_compare(const CompareOptions& options);

struct GradeOptions {
  std::string dir;
  std::string format = "text";
};
void add_grade_options(CLI::App& grade, GradeOptions& options);
int run_grade(const GradeOptions& options);

}  // namespace cudalab
