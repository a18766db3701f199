#include "report_json.hpp"

#include <fstream>

#include "common/bench/errors.hpp"

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
  if (m.predicted) j["predicted"] = *m.predicted;
  if (!m.note.empty()) j["note"] = m.note;
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
  return json{{"schema", r.schema},
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
  m.note = j.value("note", "");
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
  const std::string schema = j.value("schema", "");
  if (schema != kReportSchema) {
    throw UsageError("not a cudalab run (schema '" + schema + "', expected '" + kReportSchema + "')");
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
    return r;
  } catch (const json::exception& e) {
    throw UsageError(std::string("malformed cudalab run: ") + e.what());
  }
}

std::vector<Report> load_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("cannot open '" + path + "'");
  json j;
  try {
    in >> j;
  } catch (const json::exception& e) {
    throw UsageError("'" + path + "' is not valid JSON: " + e.what());
  }
  std::vector<Report> runs;
  try {
    if (!j.is_array()) return {report_from_json(j)};
    for (const auto& run : j) runs.push_back(report_from_json(run));
  } catch (const UsageError& e) {
    throw UsageError("'" + path + "': " + e.what());
  }
  return runs;
}

}  // namespace cudalab
