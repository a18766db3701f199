// Where a finished Report goes: text, JSON or the stable form, on stdout and/or to --json FILE.
#pragma once

#include <vector>

#include "cli/options.hpp"
#include "common/report/render.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// Every decision about output, made once from the flags and the environment: what stdout
// carries, in which language and colours, and whether a progress line may use stderr.
struct OutputPlan {
  enum class Stdout { text, json, stable, portable };
  Stdout form = Stdout::text;
  std::string json_file;  // --json FILE, empty when none (or when it is "-", i.e. stdout)
  TextStyle style;        // for the text form
  bool progress = false;  // a progress line on stderr: a person watches the text form there
};
OutputPlan plan_output(const CommonOptions& options);

TextStyle text_style(const CommonOptions& options);

void emit_report(const Report& report, const CommonOptions& options, bool recorded = false);

// For `cudalab all`: the runs as one JSON array.
void emit_reports_json(const std::vector<Report>& reports, const CommonOptions& options);

// --trace FILE: the timelines of all `reports` as one Chrome trace; says so on stderr when no
// lesson recorded one. Does nothing without --trace.
void emit_trace(const std::vector<Report>& reports, const CommonOptions& options);

// The exit code a finished run earns: verify failures always, expect failures with --strict.
int exit_code_for(const Report& report, bool strict);

}  // namespace cudalab
