// A Report as the JSON a run file holds (report_json.hpp): every field, the derived statistics
// and verdicts for whoever reads the file, and nothing that is read back from them.
#include "common/report/report_json.hpp"

#include "common/report/scheduler_fields.hpp"
#include "common/report/timeline_json.hpp"

namespace cudalab {

using nlohmann::json;

void to_json(json& j, const ArtPiece& a) {
  if (a.boxed) {
    j = json{{"box", a.rows}};
  } else {
    j = json{{"line", a.line}};
  }
}

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
  if (c.count) {
    j["correct"] = c.count->correct;
    j["checked"] = c.count->checked;
  }
}
void to_json(json& j, const EnvironmentItem& e) { j = json{{"key", e.key}, {"ok", e.ok}, {"summary", e.summary}}; }
void to_json(json& j, const Guess& g) { j = json{{"metric", g.metric}, {"question", g.question}, {"answer", g.answer}}; }
void to_json(json& j, const TryNext& t) { j = json{{"command", t.command}, {"why", t.why}}; }
void to_json(json& j, const SchedulerContext& s) {
  j = json::object();  // only what the scheduler set
  for (const auto& [key, value] : scheduler_fields(s)) {
    if (!value->empty()) j[key] = *value;
  }
}
void to_json(json& j, const ExerciseRecord& e) {
  j = json{{"id", e.id},         {"interface", e.interface_name}, {"interface_version", e.interface_version},
           {"file", e.file},     {"source", e.source},            {"source_digest", e.source_digest}};
}
void to_json(json& j, const Provenance& p) {
  j = json{{"user", p.user}, {"uid", p.uid}, {"host", p.host}, {"run_id", p.run_id}, {"gpus", p.gpu_uuids}};
  if (!p.scheduler.empty()) j["scheduler"] = p.scheduler;
}

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
  if (r.exercise) j["exercise"] = *r.exercise;
  if (!r.headline_checks.empty()) j["headline_checks"] = r.headline_checks;
  if (r.turn) {
    j["queue"] = {{"queued", r.turn->queued}, {"wait_s", r.turn->wait_s}, {"held_s", r.turn->held_s},
                  {"position", r.turn->position}};
    if (r.turn->taken_at > 0) j["queue"]["taken_at"] = r.turn->taken_at;
    if (!r.turn->phases.empty()) {
      json phases = json::array();
      for (const auto& ph : r.turn->phases) phases.push_back({{"name", ph.name}, {"seconds", ph.seconds}});
      j["queue"]["phases"] = std::move(phases);
    }
  }
  // Derived from the run itself for whoever reads the file; never read back (Report::disturbance).
  const std::vector<Message> disturbance = r.disturbance();
  j["environment_verdict"] = disturbance.empty() ? "clean" : "disturbed";
  j["disturbance"] = disturbance;
  if (r.provenance) j["provenance"] = *r.provenance;
  if (!r.class_seal.empty()) j["class_seal"] = r.class_seal;
  if (!r.digest.empty()) j["digest"] = r.digest;
  return j;
}

}  // namespace cudalab
