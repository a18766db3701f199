#include "output.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <unistd.h>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/report/render_svg.hpp"
#include "common/report/report_json.hpp"
#include "common/report/timeline_json.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

void write_json_file(const std::string& path, const nlohmann::json& json) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw UsageError("--json: cannot write '" + path + "': " + std::strerror(errno));
  out << json.dump(2) << '\n';
  if (!out) throw UsageError("--json: writing '" + path + "' failed: " + std::strerror(errno));
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

void pause_for_enter() {
  if (!stdin_is_terminal()) return;
  std::cerr << "\n  ⏎ press Enter for the next section " << std::flush;
  std::string line;
  std::getline(std::cin, line);
  throw_if_interrupted();  // Ctrl-C or SIGTERM while waiting for Enter (the read ends with EINTR)
}

}  // namespace

OutputPlan plan_output(const CommonOptions& o) {
  OutputPlan plan;
  if (o.portable) {
    plan.form = OutputPlan::Stdout::portable;
  } else if (o.stable) {
    plan.form = OutputPlan::Stdout::stable;
  } else if (o.format == "json" || o.json_path == "-") {
    plan.form = OutputPlan::Stdout::json;
  }
  if (o.json_path != "-") plan.json_file = o.json_path;
  plan.style = text_style(o);
  plan.progress = plan.form == OutputPlan::Stdout::text && isatty(STDERR_FILENO) != 0;
  return plan;
}

TextStyle text_style(const CommonOptions& o) {
  TextStyle style;
  const char* no_color = std::getenv("NO_COLOR");
  style.color = o.color == "always" ||
                (o.color == "auto" && stdout_is_terminal() && (no_color == nullptr || *no_color == '\0'));
  style.width = terminal_width();
  style.timelines = o.timeline;
  style.tables = o.tables;
  style.unicode = locale_is_utf8();
  style.lang = o.lang.empty() ? lang_from_environment() : parse_lang(o.lang);
  if (o.pause) style.between_sections = pause_for_enter;
  return style;
}

void emit_report(const Report& report, const CommonOptions& o, bool recorded) {
  const OutputPlan plan = plan_output(o);
  if (!plan.json_file.empty()) write_json_file(plan.json_file, report_to_json(report));
  if (!o.svg_dir.empty()) {
    const auto written = write_report_svgs(report, o.svg_dir);
    std::cerr << "cudalab: wrote " << written.size() << " SVG file" << (written.size() == 1 ? "" : "s") << " to "
              << o.svg_dir << '\n';
  }
  emit_trace({report}, o);
  if (plan.form == OutputPlan::Stdout::portable) {
    std::cout << render_portable(report);
  } else if (plan.form == OutputPlan::Stdout::stable) {
    std::cout << render_stable(report);
  } else if (plan.form == OutputPlan::Stdout::json) {
    std::cout << report_to_json(report).dump(2) << '\n';
  } else {
    TextStyle style = plan.style;
    style.recorded = recorded;
    style.timelines = style.timelines || recorded;
    render_text(std::cout, report, style);
  }
  std::cout.flush();
}

void emit_reports_json(const std::vector<Report>& reports, const CommonOptions& o) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : reports) runs.push_back(report_to_json(r));
  const OutputPlan plan = plan_output(o);
  if (!plan.json_file.empty()) write_json_file(plan.json_file, runs);
  if (plan.form == OutputPlan::Stdout::json) std::cout << runs.dump(2) << '\n';
}

void emit_trace(const std::vector<Report>& reports, const CommonOptions& o) {
  if (o.trace_path.empty()) return;
  std::vector<Timeline> timelines;
  for (const auto& r : reports) timelines.insert(timelines.end(), r.timelines.begin(), r.timelines.end());
  if (timelines.empty()) {
    std::cerr << "cudalab: --trace: no timeline was recorded (CUPTI unavailable, or the lesson traces nothing); '"
              << o.trace_path << "' holds no events\n";
  }
  write_chrome_trace(o.trace_path, timelines);
}

int exit_code_for(const Report& report, bool strict) {
  if (!report.verify_passed()) return to_int(ExitCode::verify_failed);
  if (strict && !report.expect_passed()) return to_int(ExitCode::verify_failed);
  return to_int(ExitCode::success);
}

}  // namespace cudalab
