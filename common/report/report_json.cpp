#include "common/report/report_json.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/report/timeline_json.hpp"

namespace cudalab {

using nlohmann::json;

// ---- to JSON -------------------------------------------------------------------------------

void to_json(json& j, const Param& p) {
  j = json{{"name", p.name}, {"value", p.value}, {"stable", p.stable}};
}
void to_json(json& j, const DeviceSummary& d) {
  j = json{{"index", d.index},       {"name", d.name},
           {"cc_major", d.cc_major}, {"cc_minor", d.cc_minor},
           {"sm_count", d.sm_count}, {"copy_engines", d.copy_engines}};
}
void to_json(json& j, const Metric& m) {
  j = json{{"key", m.key}, {"label", m.label}, {"unit", m.unit}, {"samples", m.samples}};
  if (!m.samples.empty()) {
    const Summary s = m.summary();
    j["median"] = s.median;
    j["min"] = s.min;
    j["max"] = s.max;
    j["spread"] = s.spread;
    j["inlier_spread"] = s.inlier_spread;
    j["outliers"] = s.outliers;
    j["noisy"] = m.noisy();
  }
  if (m.spread_tolerance) j["spread_tolerance"] = *m.spread_tolerance;
  if (m.compare_tolerance) j["compare_tolerance"] = *m.compare_tolerance;
  if (m.predicted) j["predicted"] = *m.predicted;
  if (!m.note.empty()) j["note"] = m.note;
  if (!m.inputs.empty()) j["inputs"] = m.inputs;
  if (!m.noisy_inputs.empty()) {
    j["noisy_inputs"] = m.noisy_inputs;
    j["noisy"] = true;
  }
}
void to_json(json& j, const Fact& f) {
  j = json{{"key", f.key}, {"label", f.label}, {"value", f.value}, {"stable", f.stable}};
  if (!f.note.empty()) j["note"] = f.note;
}
void to_json(json& j, const Cell& c) {
  j = c.metric.empty() ? json{{"text", c.text}} : json{{"metric", c.metric}};
}
void to_json(json& j, const Table& t) {
  j = json{{"key", t.key}, {"columns", t.columns}, {"rows", t.rows}};
}
void to_json(json& j, const PlotPoint& p) {
  j = p.metric.empty() ? json{{"x", p.x}, {"y", p.y}} : json{{"x", p.x}, {"metric", p.metric}};
}
void to_json(json& j, const PlotSeries& s) { j = json{{"name", s.name}, {"model", s.model}, {"points", s.points}}; }
void to_json(json& j, const Plot& p) {
  j = json{{"key", p.key},         {"title", p.title},   {"x_label", p.x_label}, {"x_unit", p.x_unit},
           {"y_label", p.y_label}, {"y_unit", p.y_unit}, {"log_x", p.log_x},     {"log_y", p.log_y},
           {"series", p.series}};
}
void to_json(json& j, const Section& s) {
  j = json{{"key", s.key},         {"title", s.title},     {"notes_key", s.notes_key},
           {"art", s.art},         {"facts", s.facts},     {"metrics", s.metrics},
           {"tables", s.tables}};
  if (!s.plots.empty()) j["plots"] = s.plots;
}
void to_json(json& j, const Check& c) {
  j = json{{"kind", c.kind == CheckKind::verify ? "verify" : "expect"},
           {"key", c.key},
           {"passed", c.passed},
           {"summary", c.summary},
           {"detail", c.detail}};
  if (!c.depends_on.empty()) j["depends_on"] = c.depends_on;
}
void to_json(json& j, const EnvironmentItem& e) { j = json{{"key", e.key}, {"ok", e.ok}, {"summary", e.summary}}; }
void to_json(json& j, const Guess& g) { j = json{{"metric", g.metric}, {"question", g.question}, {"answer", g.answer}}; }
void to_json(json& j, const TryNext& t) { j = json{{"command", t.command}, {"why", t.why}}; }

json report_to_json(const Report& r) {
  json j{{"schema", r.schema},
         {"tool_version", r.tool_version},
         {"recorded_at", r.recorded_at},
         {"lesson", {{"number", r.lesson_number}, {"slug", r.lesson_slug}, {"title", r.lesson_title}}},
         {"params", r.params},
         {"devices", r.devices},
         {"warnings", r.warnings},
         {"environment", r.environment},
         {"sections", r.sections},
         {"checks", r.checks},
         {"try_next", r.try_next},
         {"guesses", r.guesses},
         {"headline", r.headline},
         {"timelines", r.timelines}};
  // Added after the first runs were recorded; written only when set, so older runs round-trip.
  if (!r.headline_metrics.empty()) j["headline_metrics"] = r.headline_metrics;
  if (r.compare_tolerance) j["compare_tolerance"] = *r.compare_tolerance;
  if (!r.headline_checks.empty()) j["headline_checks"] = r.headline_checks;
  // Derived from the run itself for whoever reads the file; never read back (Report::disturbance).
  const std::vector<std::string> disturbance = r.disturbance();
  j["environment_verdict"] = disturbance.empty() ? "clean" : "disturbed";
  j["disturbance"] = disturbance;
  if (!r.digest.empty()) j["digest"] = r.digest;
  return j;
}

// ---- from JSON -----------------------------------------------------------------------------

void from_json(const json& j, Param& p) {
  j.at("name").get_to(p.name);
  j.at("value").get_to(p.value);
  p.stable = j.value("stable", true);
}
void from_json(const json& j, DeviceSummary& d) {
  j.at("index").get_to(d.index);
  j.at("name").get_to(d.name);
  j.at("cc_major").get_to(d.cc_major);
  j.at("cc_minor").get_to(d.cc_minor);
  j.at("sm_count").get_to(d.sm_count);
  j.at("copy_engines").get_to(d.copy_engines);
}
void from_json(const json& j, Metric& m) {
  j.at("key").get_to(m.key);
  j.at("label").get_to(m.label);
  j.at("unit").get_to(m.unit);
  j.at("samples").get_to(m.samples);
  if (j.contains("predicted")) m.predicted = j.at("predicted").get<double>();
  if (j.contains("spread_tolerance")) m.spread_tolerance = j.at("spread_tolerance").get<double>();
  if (j.contains("compare_tolerance")) m.compare_tolerance = j.at("compare_tolerance").get<double>();
  m.note = j.value("note", "");
  if (j.contains("inputs")) j.at("inputs").get_to(m.inputs);  // noisy_inputs: derived, see below
}
void from_json(const json& j, Fact& f) {
  j.at("key").get_to(f.key);
  j.at("label").get_to(f.label);
  j.at("value").get_to(f.value);
  f.note = j.value("note", "");
  f.stable = j.value("stable", true);
}
void from_json(const json& j, Cell& c) {
  c.text = j.value("text", "");
  c.metric = j.value("metric", "");
}
void from_json(const json& j, Table& t) {
  j.at("key").get_to(t.key);
  j.at("columns").get_to(t.columns);
  j.at("rows").get_to(t.rows);
}
void from_json(const json& j, PlotPoint& p) {
  j.at("x").get_to(p.x);
  p.metric = j.value("metric", "");
  p.y = j.value("y", 0.0);
}
void from_json(const json& j, PlotSeries& s) {
  j.at("name").get_to(s.name);
  s.model = j.value("model", false);
  j.at("points").get_to(s.points);
}
void from_json(const json& j, Plot& p) {
  j.at("key").get_to(p.key);
  j.at("title").get_to(p.title);
  p.x_label = j.value("x_label", "");
  p.x_unit = j.value("x_unit", "");
  p.y_label = j.value("y_label", "");
  p.y_unit = j.value("y_unit", "");
  p.log_x = j.value("log_x", false);
  p.log_y = j.value("log_y", false);
  j.at("series").get_to(p.series);
}
void from_json(const json& j, Section& s) {
  j.at("key").get_to(s.key);
  j.at("title").get_to(s.title);
  s.notes_key = j.value("notes_key", "");
  j.at("art").get_to(s.art);
  j.at("facts").get_to(s.facts);
  j.at("metrics").get_to(s.metrics);
  j.at("tables").get_to(s.tables);
  if (j.contains("plots")) j.at("plots").get_to(s.plots);
}
void from_json(const json& j, Check& c) {
  const std::string kind = j.at("kind").get<std::string>();
  if (kind != "verify" && kind != "expect") throw json::other_error::create(501, "bad check kind '" + kind + "'", &j);
  c.kind = kind == "verify" ? CheckKind::verify : CheckKind::expect;
  j.at("key").get_to(c.key);
  j.at("passed").get_to(c.passed);
  j.at("summary").get_to(c.summary);
  c.detail = j.value("detail", "");
  if (j.contains("depends_on")) j.at("depends_on").get_to(c.depends_on);
}
void from_json(const json& j, EnvironmentItem& e) {
  j.at("key").get_to(e.key);
  j.at("ok").get_to(e.ok);
  j.at("summary").get_to(e.summary);
}
void from_json(const json& j, Guess& g) {
  j.at("metric").get_to(g.metric);
  j.at("question").get_to(g.question);
  j.at("answer").get_to(g.answer);
}
void from_json(const json& j, TryNext& t) {
  j.at("command").get_to(t.command);
  j.at("why").get_to(t.why);
}

Report report_from_json(const json& j) {
  if (!j.is_object()) throw UsageError(std::string("not a cudalab run (JSON ") + j.type_name() + ")");
  const auto found = j.find("schema");
  const std::string schema = found != j.end() && found->is_string() ? found->get<std::string>() : "";
  if (schema != kReportSchema) {
    throw UsageError("not a cudalab run (schema '" + printable(schema) + "', expected '" + kReportSchema + "')");
  }
  try {
    Report r;
    r.schema = schema;
    j.at("tool_version").get_to(r.tool_version);
    j.at("recorded_at").get_to(r.recorded_at);
    const json& lesson = j.at("lesson");
    lesson.at("number").get_to(r.lesson_number);
    lesson.at("slug").get_to(r.lesson_slug);
    lesson.at("title").get_to(r.lesson_title);
    j.at("params").get_to(r.params);
    j.at("devices").get_to(r.devices);
    j.at("warnings").get_to(r.warnings);
    j.at("sections").get_to(r.sections);
    j.at("checks").get_to(r.checks);
    j.at("try_next").get_to(r.try_next);
    j.at("headline").get_to(r.headline);
    // Added after the first runs were recorded: older runs have none.
    if (j.contains("timelines")) j.at("timelines").get_to(r.timelines);
    if (j.contains("guesses")) j.at("guesses").get_to(r.guesses);
    if (j.contains("environment")) j.at("environment").get_to(r.environment);
    if (j.contains("headline_metrics")) j.at("headline_metrics").get_to(r.headline_metrics);
    if (j.contains("headline_checks")) j.at("headline_checks").get_to(r.headline_checks);
    // environment_verdict and disturbance are derived (Report::disturbance): not read.
    if (j.contains("compare_tolerance")) r.compare_tolerance = j.at("compare_tolerance").get<double>();
    if (j.contains("digest")) j.at("digest").get_to(r.digest);
    r.resolve_noisy_inputs();  // from the samples, as the live run did
    return r;
  } catch (const json::exception& e) {
    throw UsageError(std::string("malformed cudalab run: ") + printable(e.what()));
  }
}

namespace {

// Every string a renderer may print, with its control characters made visible.
void make_printable(Report& r) {
  auto fix = [](std::string& text) { text = printable(text); };
  auto fix_all = [&](std::vector<std::string>& texts) { std::for_each(texts.begin(), texts.end(), fix); };
  for (std::string* text : {&r.tool_version, &r.recorded_at, &r.lesson_slug, &r.lesson_title, &r.headline}) fix(*text);
  for (auto& p : r.params) fix(p.name), fix(p.value);
  for (auto& d : r.devices) fix(d.name);
  fix_all(r.warnings);
  for (auto& e : r.environment) fix(e.key), fix(e.summary);
  for (auto& s : r.sections) {
    fix(s.key), fix(s.title), fix(s.notes_key), fix_all(s.art);
    for (auto& f : s.facts) fix(f.key), fix(f.label), fix(f.value), fix(f.note);
    for (auto& m : s.metrics) fix(m.key), fix(m.label), fix(m.unit), fix(m.note), fix_all(m.inputs);
    for (auto& t : s.tables) {
      fix(t.key), fix_all(t.columns);
      for (auto& row : t.rows) {
        for (auto& cell : row) fix(cell.text), fix(cell.metric);
      }
    }
  }
  for (auto& c : r.checks) fix(c.key), fix(c.summary), fix(c.detail), fix_all(c.depends_on);
  for (auto& t : r.try_next) fix(t.command), fix(t.why);
  for (auto& t : r.timelines) {
    fix(t.key), fix(t.title), fix(t.notes_key);
    for (auto& lane : t.lanes) fix(lane.name);
    for (auto& op : t.ops) fix(op.name), fix(op.src_memory), fix(op.dst_memory);
  }
  fix_all(r.headline_metrics);
  fix_all(r.headline_checks);
}

SavedRun saved_run(const json& raw, const std::string& source) {
  if (!raw.is_object()) throw UsageError(std::string("not a cudalab run (JSON ") + raw.type_name() + ")");
  SavedRun run{source, report_from_json(raw), {}};
  run.integrity = assess_integrity(run.report, raw);
  make_printable(run.report);
  return run;
}

// A real run with every timeline is about 2 MiB; a hundred times that still reads in a second.
constexpr std::size_t kMaxRunFileBytes = std::size_t(256) << 20;

}  // namespace

std::vector<SavedRun> parse_saved_runs(const std::string& text, const std::string& source) {
  const std::string name = "'" + printable(source) + "'";
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(name + " is not valid JSON (truncated or not a run?): " + printable(e.what()));
  }
  if (j.is_null()) throw UsageError(name + " holds JSON null, not a cudalab run");
  if (j.is_array() && j.empty()) throw UsageError(name + " holds no runs (an empty JSON array)");
  std::vector<SavedRun> runs;
  try {
    if (!j.is_array()) return {saved_run(j, source)};
    for (const auto& run : j) runs.push_back(saved_run(run, source));
  } catch (const UsageError& e) {
    throw UsageError(name + ": " + e.what());
  }
  return runs;
}

std::vector<SavedRun> read_saved_runs(const std::string& path) {
  return parse_saved_runs(read_regular_file(path, kMaxRunFileBytes, "a saved run"), path);
}

std::vector<Report> load_runs(const std::string& path) {
  std::vector<Report> reports;
  for (auto& run : read_saved_runs(path)) reports.push_back(std::move(run.report));
  return reports;
}

}  // namespace cudalab
