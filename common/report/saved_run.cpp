// Saved runs loaded from a file or text (saved_run.hpp): one run or an array of them, each judged
// for integrity on the bytes as written, then made safe to print.
#include "common/report/saved_run.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/text_format.hpp"
#include "common/report/json_field.hpp"
#include "common/report/report_json.hpp"
#include "common/report/scheduler_fields.hpp"

namespace cudalab {

using nlohmann::json;

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
  SavedRun run{source, report_from_json(raw, std::move(root_path)), {}, {}};
  run.integrity = assess_integrity(run.report, raw);
  run.class_seal = assess_class_seal(raw);
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
