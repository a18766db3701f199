// A Report read back from its JSON (report_json.hpp), field by field, each problem named where
// it is; a run of the first schema read as the finished English it was recorded in.
#include "common/report/report_json.hpp"

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/digest.hpp"
#include "common/report/json_field.hpp"
#include "common/report/scheduler_fields.hpp"
#include "common/report/timeline_json.hpp"

namespace cudalab {

using nlohmann::json;

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
  r.class_seal = optional_text(f, "class_seal");
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

Report report_from_json(const json& j, std::string path) { return report_from_field(JsonField(j, std::move(path))); }

}  // namespace cudalab
