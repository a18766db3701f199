#include "common/report/report_json.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/report/digest.hpp"
#include "common/report/json_field.hpp"
#include "common/report/timeline_json.hpp"

namespace cudalab {

using nlohmann::json;

// ---- to JSON -------------------------------------------------------------------------------

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
// The scheduler's fields by their JSON names, for writing, reading and making them printable.
template <class Context>  // SchedulerContext or const SchedulerContext
auto scheduler_fields(Context& s) {
  return std::array{std::pair{"job_id", &s.job_id}, std::pair{"array_job_id", &s.array_job_id},
                    std::pair{"array_task_id", &s.array_task_id}, std::pair{"node", &s.node},
                    std::pair{"node_id", &s.node_id}, std::pair{"gpus", &s.gpus}, std::pair{"rank", &s.rank},
                    std::pair{"world_size", &s.world_size}, std::pair{"local_rank", &s.local_rank}};
}

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
  if (!r.digest.empty()) j["digest"] = r.digest;
  return j;
}

// ---- from JSON -----------------------------------------------------------------------------
// Each reader takes the field it reads, so a problem names where it is:
// "sections[3].metrics[2].samples[7]: expected a number, found a string".

namespace {

Message optional_message(const JsonField& f, std::string_view key) {
  const auto member = f.find(key);
  return member ? read_message(*member) : Message();
}

std::string optional_text(const JsonField& f, std::string_view key) {
  const auto member = f.find(key);
  return member ? member->text() : std::string();
}

bool optional_flag(const JsonField& f, std::string_view key, bool otherwise) {
  const auto member = f.find(key);
  return member ? member->flag() : otherwise;
}

template <class T, class Read>
std::vector<T> read_all(const JsonField& f, Read read) {
  std::vector<T> out;
  f.each([&](const JsonField& element) { out.push_back(read(element)); });
  return out;
}

template <class T, class Read>
std::vector<T> read_optional(const JsonField& f, std::string_view key, Read read) {
  const auto member = f.find(key);
  return member ? read_all<T>(*member, read) : std::vector<T>{};
}

std::vector<Message> read_messages(const JsonField& f) { return read_all<Message>(f, read_message); }

int small_integer(const JsonField& f) { return static_cast<int>(f.integer(-1000000, 1000000)); }

Param read_param(const JsonField& f) {
  return Param{f.at("name").text(), f.at("value").text(), optional_flag(f, "stable", true)};
}

DeviceSummary read_device(const JsonField& f) {
  DeviceSummary d;
  d.index = small_integer(f.at("index"));
  d.name = f.at("name").text();
  d.cc_major = small_integer(f.at("cc_major"));
  d.cc_minor = small_integer(f.at("cc_minor"));
  d.sm_count = small_integer(f.at("sm_count"));
  d.copy_engines = small_integer(f.at("copy_engines"));
  return d;
}

std::optional<double> optional_number(const JsonField& f, std::string_view key) {
  const auto member = f.find(key);
  return member ? std::optional<double>(member->number()) : std::nullopt;
}

Metric read_metric(const JsonField& f) {
  Metric m;
  m.key = f.at("key").text();
  m.label = read_message(f.at("label"));
  m.unit = f.at("unit").text();
  m.samples = f.at("samples").numbers();
  m.predicted = optional_number(f, "predicted");
  m.spread_tolerance = optional_number(f, "spread_tolerance");
  m.compare_tolerance = optional_number(f, "compare_tolerance");
  m.note = optional_message(f, "note");
  if (const auto inputs = f.find("inputs")) m.inputs = inputs->texts();  // noisy_inputs: derived
  return m;
}

Fact read_fact(const JsonField& f) {
  return Fact{f.at("key").text(), read_message(f.at("label")), read_message(f.at("value")),
              optional_message(f, "note"), optional_flag(f, "stable", true)};
}

Table read_table(const JsonField& f) {
  Table t;
  t.key = f.at("key").text();
  t.columns = read_messages(f.at("columns"));
  t.rows = read_all<std::vector<Cell>>(f.at("rows"), [](const JsonField& row) {
    return read_all<Cell>(row, [](const JsonField& c) { return Cell{optional_message(c, "text"), optional_text(c, "metric")}; });
  });
  return t;
}

PlotSeries read_series(const JsonField& f) {
  PlotSeries s;
  s.name = read_message(f.at("name"));
  s.model = optional_flag(f, "model", false);
  s.points = read_all<PlotPoint>(f.at("points"), [](const JsonField& p) {
    return PlotPoint{p.at("x").number(), optional_text(p, "metric"), optional_number(p, "y").value_or(0.0)};
  });
  return s;
}

Plot read_plot(const JsonField& f) {
  Plot p;
  p.key = f.at("key").text();
  p.title = read_message(f.at("title"));
  p.x_label = optional_message(f, "x_label");
  p.x_unit = optional_text(f, "x_unit");
  p.y_label = optional_message(f, "y_label");
  p.y_unit = optional_text(f, "y_unit");
  p.log_x = optional_flag(f, "log_x", false);
  p.log_y = optional_flag(f, "log_y", false);
  p.series = read_all<PlotSeries>(f.at("series"), read_series);
  return p;
}

// A piece of a drawing: {"line": words} or {"box": [[cell, ...], ...]}; in a run of schema 1, a
// drawn line (boxes included, as finished text).
ArtPiece read_art(const JsonField& f) {
  ArtPiece piece;
  if (f.value().is_string()) {
    piece.line = Message::verbatim(f.text());
  } else if (const auto box = f.find("box")) {
    piece.boxed = true;
    piece.rows = read_all<std::vector<Message>>(*box, read_messages);
  } else {
    piece.line = read_message(f.at("line"));
  }
  return piece;
}

Section read_section(const JsonField& f) {
  Section s;
  s.key = f.at("key").text();
  s.title = read_message(f.at("title"));
  s.notes_key = optional_text(f, "notes_key");
  s.art = read_all<ArtPiece>(f.at("art"), read_art);
  s.facts = read_all<Fact>(f.at("facts"), read_fact);
  s.metrics = read_all<Metric>(f.at("metrics"), read_metric);
  s.tables = read_all<Table>(f.at("tables"), read_table);
  s.plots = read_optional<Plot>(f, "plots", read_plot);
  return s;
}

Check read_check(const JsonField& f) {
  Check c;
  const std::string kind = f.at("kind").text();
  if (kind != "verify" && kind != "expect") {
    f.at("kind").fail(
        msg("expected \"verify\" or \"expect\", found \"{kind}\"", arg("kind", printable_value(kind, 40))));
  }
  c.kind = kind == "verify" ? CheckKind::verify : CheckKind::expect;
  c.key = f.at("key").text();
  c.passed = f.at("passed").flag();
  c.summary = read_message(f.at("summary"));
  c.detail = optional_message(f, "detail");
  if (const auto depends = f.find("depends_on")) c.depends_on = depends->texts();
  // Added with structured checks; a run recorded before has neither.
  const auto correct = f.find("correct"), checked = f.find("checked");
  if (correct || checked) {
    c.count = Tally{};
    c.count->correct = f.at("correct").count();
    c.count->checked = f.at("checked").count();
    if (c.count->correct > c.count->checked) f.at("correct").fail(Message("more correct than checked"));
  }
  return c;
}

EnvironmentItem read_environment(const JsonField& f) {
  return EnvironmentItem{f.at("key").text(), f.at("ok").flag(), read_message(f.at("summary"))};
}

SchedulerContext read_scheduler(const JsonField& f) {
  SchedulerContext s;
  for (const auto& [key, value] : scheduler_fields(s)) *value = optional_text(f, key);
  return s;
}

Provenance read_provenance(const JsonField& f) {
  Provenance p;
  p.user = f.at("user").text();
  p.uid = f.at("uid").integer(-1, 4294967295LL);
  p.host = f.at("host").text();
  p.run_id = f.at("run_id").text();
  p.gpu_uuids = f.at("gpus").texts();
  if (const auto scheduler = f.find("scheduler")) p.scheduler = read_scheduler(*scheduler);
  return p;
}

// The source's digest is computed again from the text: a file cannot pair one source with
// another's digest (the run's own digest then fails too).
ExerciseRecord read_exercise(const JsonField& f) {
  ExerciseRecord e;
  e.id = f.at("id").text();
  e.interface_name = f.at("interface").text();
  e.interface_version = static_cast<int>(f.at("interface_version").integer(0, 1000000));
  e.file = f.at("file").text();
  e.source = f.at("source").text();
  e.source_digest = "sha256:" + sha256_hex(e.source);
  return e;
}

void read_lesson(const JsonField& lesson, Report& r) {
  r.lesson_number = small_integer(lesson.at("number"));
  r.lesson_slug = lesson.at("slug").text();
  r.lesson_title = read_message(lesson.at("title"));
}

// The fields added after the first runs were recorded: older runs have none.
void read_later_fields(const JsonField& f, Report& r) {
  r.timelines = read_optional<Timeline>(f, "timelines", read_timeline);
  r.guesses = read_optional<Guess>(f, "guesses", [](const JsonField& g) {
    return Guess{g.at("metric").text(), g.at("question").text(), g.at("answer").number()};
  });
  r.environment = read_optional<EnvironmentItem>(f, "environment", read_environment);
  if (const auto keys = f.find("headline_metrics")) r.headline_metrics = keys->texts();
  if (const auto keys = f.find("headline_checks")) r.headline_checks = keys->texts();
  if (const auto q = f.find("queue")) {
    r.turn = TurnSummary{q->at("queued").flag(), q->at("wait_s").number(), q->at("held_s").number(),
                         static_cast<int>(q->at("position").integer(-1, 1000000)),
                         read_optional<PhaseTime>(*q, "phases", [](const JsonField& ph) {
                           return PhaseTime{ph.at("name").text(), ph.at("seconds").number()};
                         }),
                         optional_number(*q, "taken_at").value_or(0.0)};
  }
  // environment_verdict and disturbance are derived (Report::disturbance): not read.
  r.compare_tolerance = optional_number(f, "compare_tolerance");
  if (const auto p = f.find("provenance")) r.provenance = read_provenance(*p);
  if (const auto e = f.find("exercise")) r.exercise = read_exercise(*e);
  r.digest = optional_text(f, "digest");
}

Report read_report(const JsonField& f, const std::string& schema) {
  Report r;
  r.schema = schema;
  r.tool_version = f.at("tool_version").text();
  r.recorded_at = f.at("recorded_at").text();
  read_lesson(f.at("lesson"), r);
  r.params = read_all<Param>(f.at("params"), read_param);
  r.devices = read_all<DeviceSummary>(f.at("devices"), read_device);
  r.warnings = read_messages(f.at("warnings"));
  r.sections = read_all<Section>(f.at("sections"), read_section);
  r.checks = read_all<Check>(f.at("checks"), read_check);
  r.try_next = read_all<TryNext>(f.at("try_next"), [](const JsonField& t) {
    return TryNext{t.at("command").text(), read_message(t.at("why"))};
  });
  r.headline = read_message(f.at("headline"));
  read_later_fields(f, r);
  // Every word of a run of schema 1 is the finished English it was recorded in: data.
  if (schema == kLegacyReportSchema) for_each_message(r, [](Message& m) { m = Message::verbatim(m.en()); });
  r.resolve_noisy_inputs();  // from the samples, as the live run did
  return r;
}

Report report_from_field(const JsonField& f) {
  const json& j = f.value();
  if (!j.is_object()) throw UsageError(msg("not a cudalab run (JSON {kind})", arg("kind", json_kind(j))));
  const auto found = j.find("schema");
  const std::string schema = found != j.end() && found->is_string() ? found->get<std::string>() : "";
  if (schema != kReportSchema && schema != kLegacyReportSchema) {
    throw UsageError(msg("not a cudalab run (schema '{schema}', expected '{expected}')",
                         arg("schema", printable_value(schema)), arg("expected", std::string(kReportSchema))));
  }
  return read_report(f, schema);
}

}  // namespace

Report report_from_json(const json& j) { return report_from_field(JsonField(j, "")); }

namespace {

// Every string a renderer may print, with its control characters made visible.
void make_printable(Report& r) {
  // Most strings need nothing: only those holding a control character are rewritten.
  auto fix = [](std::string& text) {
    const bool control = std::any_of(text.begin(), text.end(), [](char c) {
      const auto byte = static_cast<unsigned char>(c);
      return byte < 0x20 || byte == 0x7f || byte == 0xc2;  // 0xc2: the lead byte of U+0080..U+009F
    });
    if (control) text = printable(text);
  };
  auto fix_all = [&](std::vector<std::string>& texts) { std::for_each(texts.begin(), texts.end(), fix); };
  for (std::string* text : {&r.tool_version, &r.recorded_at, &r.lesson_slug}) fix(*text);
  // Words: their templates and every argument, at every depth.
  for_each_message(r, [&](Message& m) {
    m = m.mapped([&](std::string text) {
      fix(text);
      return text;
    });
  });
  for (auto& p : r.params) fix(p.name), fix(p.value);
  for (auto& d : r.devices) fix(d.name);
  for (auto& e : r.environment) fix(e.key);
  for (auto& s : r.sections) {
    fix(s.key), fix(s.notes_key);
    for (auto& f : s.facts) fix(f.key);
    for (auto& m : s.metrics) fix(m.key), fix(m.unit), fix_all(m.inputs);
    for (auto& t : s.tables) {
      fix(t.key);
      for (auto& row : t.rows) {
        for (auto& cell : row) fix(cell.metric);
      }
    }
  }
  for (auto& c : r.checks) fix(c.key), fix_all(c.depends_on);
  for (auto& t : r.try_next) fix(t.command);
  for (auto& t : r.timelines) {
    fix(t.key), fix(t.notes_key);
    for (auto& op : t.ops) fix(op.name), fix(op.src_memory), fix(op.dst_memory);
  }
  fix_all(r.headline_metrics);
  fix_all(r.headline_checks);
  // The exercise's source stays as written: a grader compiles it again (grade --rerun), and no
  // renderer prints it whole.
  if (r.exercise) fix(r.exercise->id), fix(r.exercise->interface_name), fix(r.exercise->file);
  if (r.provenance) {
    auto& p = *r.provenance;
    fix(p.user), fix(p.host), fix(p.run_id), fix_all(p.gpu_uuids);
    for (const auto& field : scheduler_fields(p.scheduler)) fix(*field.second);
  }
}

SavedRun saved_run(const json& raw, const std::string& source, std::string root_path) {
  SavedRun run{source, report_from_field(JsonField(raw, std::move(root_path))), {}};
  run.integrity = assess_integrity(run.report, raw);
  make_printable(run.report);
  return run;
}

}  // namespace

std::vector<SavedRun> parse_saved_runs(const std::string& text, const std::string& source) {
  const std::string name = "'" + printable_value(source) + "'";
  const json j = parse_untrusted_json(text, name);
  if (j.is_null()) throw UsageError(msg("{name} holds JSON null, not a cudalab run", arg("name", name)));
  if (j.is_array() && j.empty()) throw UsageError(msg("{name} holds no runs (an empty JSON array)", arg("name", name)));
  std::vector<SavedRun> runs;
  try {
    if (!j.is_array()) return {saved_run(j, source, "")};
    for (std::size_t i = 0; i < j.size(); ++i) runs.push_back(saved_run(j[i], source, "[" + std::to_string(i) + "]"));
  } catch (const UsageError& e) {
    throw UsageError(msg("{name}: {problem}", arg("name", name), arg("problem", words_of(e))));
  }
  return runs;
}

std::vector<SavedRun> read_saved_runs(const std::string& path) {
  return parse_saved_runs(read_regular_file(path, kMaxRunFileBytes, Message("a saved run")), path);
}

std::vector<Report> load_runs(const std::string& path) {
  std::vector<Report> reports;
  for (auto& run : read_saved_runs(path)) reports.push_back(std::move(run.report));
  return reports;
}

}  // namespace cudalab
