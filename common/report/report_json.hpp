// The JSON form of a Report (schema "cudalab-run/1"; README.md, "Output", lists its fields).
// Every number keeps its unit and all its samples; derived statistics are written for
// convenience and recomputed from the samples when a run is read back.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace cudalab {

nlohmann::json report_to_json(const Report& report);

// Throws UsageError naming the file and the problem when the JSON is not a cudalab run.
Report report_from_json(const nlohmann::json& json);

// Reads a saved run, or the array of runs `cudalab all --json` writes.
std::vector<Report> load_runs(const std::string& path);

}  // namespace cudalab
