// The commands for graders and GPU-less students: `compare` (runs side by side against a
// baseline), `grade` (a class's folder of runs in one table), and how every command that reads
// runs finds them: a file, or a lesson's built-in reference run (`cudalab show 03`).
#pragma once

#include <string>
#include <vector>

#include "common/report/report_json.hpp"

namespace cudalab {

// A run named on the command line: a file saved with --json, or a lesson (03, 3, or the lesson's
// name) for its reference run built into the binary. Throws UsageError, one line, when it is neither.
std::vector<SavedRun> load_run_argument(const std::string& argument);

// "15%" or "15" (percent), 0 to 1000; "" or why not.
Message tolerance_problem(const std::string& text);

}  // namespace cudalab
