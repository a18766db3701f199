// Where a finished Report goes: text, JSON or the stable form, on stdout and/or to files; and the
// OutputPlan, every decision about output made once per process from the flags and the
// environment, then passed to everything that prints.
#pragma once

#include <string>
#include <vector>

#include "cli/flags.hpp"
#include "common/report/render.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct OutputPlan {
  enum class Form { text, json, stable, portable };
  Form form = Form::text;
  std::string json_file;   // --json FILE; "" when none (or when it is "-", i.e. stdout)
  std::string trace_file;  // --trace FILE
  std::string svg_dir;     // --svg DIR
  TextStyle style;         // language, colour, width, unicode, tables, timelines, pause
  bool progress = false;   // a progress line on stderr: a person watches the text form there
  std::string submit_dir;  // --submit: the drop folder the run is handed into ("": none)

  Lang lang() const { return style.lang; }
};

// --color auto|always|never against the terminal and NO_COLOR.
bool color_wanted(const std::string& color_flag);

// The one place output is decided: the flags, NO_COLOR, the terminal, COLUMNS, the locale.
OutputPlan plan_output(const CommonFlags& flags);

void emit_report(const Report& report, const OutputPlan& plan, bool recorded = false);

// For `cudalab all`: the runs as one JSON array.
void emit_reports_json(const std::vector<Report>& reports, const OutputPlan& plan);

// --trace FILE: the timelines of all `reports` as one Chrome trace; says so on stderr when no
// lesson recorded one. Does nothing without --trace.
void emit_trace(const std::vector<Report>& reports, const OutputPlan& plan);

// The exit code a finished run earns: verify failures always, expect failures with --strict.
int exit_code_for(const Report& report, bool strict);

}  // namespace cudalab
