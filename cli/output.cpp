#include "cli/output.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "cli/drop_folder.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/report/render_svg.hpp"
#include "common/report/report_json.hpp"
#include "common/report/timeline_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

void write_json_file(const std::string& path, const nlohmann::json& json) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) {
    throw UsageError(msg("--json: cannot write '{path}': {why}", arg("path", printable_value(path)),
                         arg("why", errno_words(errno))));
  }
  out << json.dump(2) << '\n';
  if (!out) {
    throw UsageError(msg("--json: writing '{path}' failed: {why}", arg("path", printable_value(path)),
                         arg("why", errno_words(errno))));
  }
}

// Braille and box drawing only where the locale says UTF-8; an unset locale (CI, tests) is
// taken as UTF-8, as every terminal the lab meets today is.
bool locale_is_utf8() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    std::string value(v);
    for (auto& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return value.find("utf-8") != std::string::npos || value.find("utf8") != std::string::npos;
  }
  return true;
}

void pause_for_enter(Lang lang) {
  if (!stdin_is_terminal()) return;
  std::cerr << "\n  ⏎ " << tr(lang, "press Enter for the next section") << ' ' << std::flush;
  std::string line;
  std::getline(std::cin, line);
  throw_if_interrupted();  // Ctrl-C or SIGTERM while waiting for Enter (the read ends with EINTR)
}

OutputPlan::Form form_of(const CommonFlags& f) {
  const bool json = f.format == "json" || f.json_path == "-";
  if (json && (f.portable || f.stable)) {  // two forms on one stdout: say so rather than pick one
    throw UsageError(msg("--{form} and {json} are two output forms; choose one", arg("form", std::string(f.portable ? "portable" : "stable")),
                         arg("json", std::string(f.format == "json" ? "--format json" : "--json -"))));
  }
  if (f.portable) return OutputPlan::Form::portable;
  if (f.stable) return OutputPlan::Form::stable;
  if (f.format == "json" || f.json_path == "-") return OutputPlan::Form::json;
  return OutputPlan::Form::text;
}

}  // namespace

bool color_wanted(const std::string& color_flag) {
  const char* no_color = std::getenv("NO_COLOR");
  return color_flag == "always" ||
         (color_flag == "auto" && stdout_is_terminal() && (no_color == nullptr || *no_color == '\0'));
}

OutputPlan plan_output(const CommonFlags& f) {
  OutputPlan plan;
  plan.form = form_of(f);
  if (f.json_path != "-") plan.json_file = f.json_path;
  plan.trace_file = f.trace_path;
  plan.svg_dir = f.svg_dir;
  plan.style.color = color_wanted(f.color);
  plan.style.width = terminal_width();
  plan.style.timelines = f.timeline;
  plan.style.tables = f.tables;
  plan.style.unicode = locale_is_utf8();
  plan.style.lang = f.lang.empty() ? lang_from_environment() : parse_lang(f.lang);
  if (f.pause) plan.style.between_sections = [lang = plan.style.lang] { pause_for_enter(lang); };
  plan.progress = plan.form == OutputPlan::Form::text && isatty(STDERR_FILENO) != 0;
  return plan;
}

void emit_report(const Report& report, const OutputPlan& plan, bool recorded) {
  if (!plan.json_file.empty()) write_json_file(plan.json_file, report_to_json(report));
  if (!plan.svg_dir.empty()) {
    const auto written = write_report_svgs(report, plan.svg_dir, plan.lang());
    if (written.empty()) {
      std::cerr << tr(plan.lang(), msg("cudalab: --svg: this run drew no plot and no timeline, so no SVG file was "
                                       "written to {folder} (a plot needs two or more points, such as a sweep of "
                                       "sizes; --timeline adds a timeline)",
                                       arg("folder", printable_value(plan.svg_dir))))
                << '\n';
    } else {
      const char* wrote = written.size() == 1 ? "cudalab: wrote {count} SVG file to {folder}"
                                              : "cudalab: wrote {count} SVG files to {folder}";
      std::cerr << tr(plan.lang(), msg(wrote, arg("count", written.size()), arg("folder", printable_value(plan.svg_dir))))
                << '\n';
    }
  }
  emit_trace({report}, plan);
  if (!plan.submit_dir.empty() && !recorded) {
    const std::string name = hand_in(plan.submit_dir, report_to_json(report).dump(2) + "\n", report);
    std::cerr << tr(plan.lang(), msg("cudalab: {line}", arg("line", handed_in_line(report, name, plan.submit_dir)))) << '\n';
  }
  switch (plan.form) {
    case OutputPlan::Form::portable: std::cout << render_portable(report); break;
    case OutputPlan::Form::stable: std::cout << render_stable(report); break;
    case OutputPlan::Form::json: std::cout << report_to_json(report).dump(2) << '\n'; break;
    case OutputPlan::Form::text: {
      TextStyle style = plan.style;
      style.recorded = recorded;
      style.timelines = style.timelines || recorded;
      render_text(std::cout, report, style);
      break;
    }
  }
  std::cout.flush();
}

void emit_reports_json(const std::vector<Report>& reports, const OutputPlan& plan) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : reports) runs.push_back(report_to_json(r));
  if (!plan.json_file.empty()) write_json_file(plan.json_file, runs);
  if (plan.form == OutputPlan::Form::json) std::cout << runs.dump(2) << '\n';
}

void emit_trace(const std::vector<Report>& reports, const OutputPlan& plan) {
  if (plan.trace_file.empty()) return;
  std::vector<Timeline> timelines;
  TraceWords words{plan.lang(), {}};
  for (const auto& r : reports) {
    timelines.insert(timelines.end(), r.timelines.begin(), r.timelines.end());
    words.notes_files.insert(words.notes_files.end(), r.timelines.size(), r.notes_file());
  }
  if (timelines.empty()) {
    std::cerr << tr(plan.lang(), "cudalab: --trace: no timeline was recorded (CUPTI unavailable, or the lesson traces "
                                 "nothing); the file holds no events")
              << '\n';
  }
  write_chrome_trace(plan.trace_file, timelines, words);
}

int exit_code_for(const Report& report, bool strict) {
  if (!report.verify_passed()) return to_int(ExitCode::verify_failed);
  if (strict && !report.expect_passed()) return to_int(ExitCode::verify_failed);
  return to_int(ExitCode::success);
}

}  // namespace cudalab
