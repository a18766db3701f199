// The JSON form of a Report, both ways (schema "cudalab-run/2", kReportSchema; runs of the first
// schema, "cudalab-run/1", are still read; README.md, "Output", lists its fields). Every number
// keeps its unit and all its samples; derived statistics are written for convenience and
// recomputed from the samples when a run is read back. Writing: report_json_write.cpp; reading:
// report_json_read.cpp; loading a file of runs (SavedRun, included here): saved_run.hpp.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/report/report.hpp"
#include "common/report/saved_run.hpp"  // SavedRun: most readers of a run's JSON want it too

namespace cudalab {

nlohmann::json report_to_json(const Report& report);

// Throws UsageError naming the file and the problem when the JSON is not a cudalab run; a problem
// is named from `path` on, the run's place in a larger document ("[3]": the fourth run of many).
Report report_from_json(const nlohmann::json& json, std::string path = "");

}  // namespace cudalab
