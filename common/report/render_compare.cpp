// The three forms of `cudalab compare` and `cudalab grade`: text for a terminal (every line fits
// `width`, nothing is cut: long names wrap or move to a line of their own), markdown for a course
// page or an issue, CSV for a spreadsheet. Every string that came from a file was made printable
// when it was read (report_json.hpp).
#include <algorithm>
#include <string_view>
#include <sstream>

#include <fmt/format.h>

#include "common/report/compare.hpp"
#include "common/report/table_cells.hpp"
#include "common/core/text_format.hpp"
#include "common/core/units.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

const char* kind_name(CheckKind kind) { return kind == CheckKind::verify ? "verify" : "expect"; }

// "pass" or "FAIL" (words), "—" when the run has no such check.
Message verdict_of(const std::optional<bool>& passed) {
  if (!passed) return verbatim("—");
  return *passed ? "pass" : "FAIL";
}

std::string value_text(const std::optional<double>& v) { return v ? format_number(*v) : "—"; }

// A param's value, or "—" when the run does not set it: data either way.
std::string value_or_dash(const std::string& value) { return value.empty() ? "—" : value; }

const char* metric_verdict(const MetricComparison& m) {
  if (!m.a || !m.b) return "missing";
  return m.within() ? "ok" : "OUT";
}

// Each message in `lang`.
std::vector<std::string> spoken(const std::vector<Message>& phrases, Lang lang) {
  std::vector<std::string> out;
  for (const auto& phrase : phrases) out.push_back(tr(lang, phrase));
  return out;
}

const char* environment_word(const std::vector<Message>& disturbance) {
  return disturbance.empty() ? "clean" : "disturbed";
}

// "clean", or "disturbed: 3 other processes worked on the GPU while the lesson measured; ..."
Message environment_text(const std::vector<Message>& disturbance) {
  if (disturbance.empty()) return "clean";
  return msg("disturbed: {reason}", arg("reason", listed(disturbance)));
}

Message device_of(const Report& r) {
  if (r.devices.empty()) return "no device";
  return verbatim(r.devices.front().name);
}

// Device, date, integrity and environment of a run, for a line joined with " · ".
std::vector<Message> run_items(const SavedRun& run, const std::vector<Message>& disturbance) {
  return {device_of(run.report), verbatim(run.report.recorded_at), integrity_name(run.integrity.state),
          environment_word(disturbance)};
}

// `text` wrapped to `width`: its first line after `first` spaces, the others after `rest`.
void put_wrapped(std::ostringstream& out, const std::string& text, std::size_t width, std::size_t first,
                 std::size_t rest) {
  const auto lines = wrap_text(text, std::max<std::size_t>(width, rest + 20) - std::max(first, rest));
  for (std::size_t i = 0; i < lines.size(); ++i) out << std::string(i == 0 ? first : rest, ' ') << lines[i] << '\n';
}

// Items joined by `separator`, as many to a line as fit `width` after `indent`; an item is split
// only when it is wider than a line by itself.
void put_packed(std::ostringstream& out, const std::vector<std::string>& items, std::size_t width, std::size_t indent,
                const std::string& separator = "  ") {
  const std::size_t room = std::max<std::size_t>(width, indent + 20) - indent;
  std::string line;
  const auto flush = [&] {
    if (!line.empty()) out << std::string(indent, ' ') << line << '\n';
    line.clear();
  };
  for (const auto& item : items) {
    if (!line.empty() && display_width(line) + display_width(separator) + display_width(item) > room) flush();
    if (line.empty() && display_width(item) > room) {
      const auto pieces = wrap_text(item, room);
      for (std::size_t i = 0; i + 1 < pieces.size(); ++i) out << std::string(indent, ' ') << pieces[i] << '\n';
      line = pieces.back();
      continue;
    }
    line += (line.empty() ? "" : separator) + item;
  }
  flush();
}

// Who was disturbed, and why: "B was disturbed (3 other processes used the GPU ...)".
Message disturbed_phrase(const Comparison& c) {
  const bool a = !c.disturbance_a.empty();
  const bool b = !c.disturbance_b.empty();
  if (a && b) {
    return msg("A was disturbed ({a}) and B was disturbed ({b})", arg("a", listed(c.disturbance_a)),
               arg("b", listed(c.disturbance_b)));
  }
  if (a) return msg("A was disturbed ({reasons})", arg("reasons", listed(c.disturbance_a)));
  if (b) return msg("B was disturbed ({reasons})", arg("reasons", listed(c.disturbance_b)));
  return {};
}

// The verdict in one sentence.
Message verdict_sentence(const Comparison& c) {
  switch (c.verdict()) {
    case CompareVerdict::holds: {
      std::size_t headlines = 0;
      for (const auto& m : c.metrics) headlines += m.headline ? 1 : 0;
      if (headlines == 1) {
        return msg("B holds against A: {count} headline metric within tolerance, every verify check passed",
                   arg("count", headlines));
      }
      return msg("B holds against A: {count} headline metrics within tolerance, every verify check passed",
                 arg("count", headlines));
    }
    case CompareVerdict::inconclusive: {
      const auto undecided = c.undecided();
      if (undecided.empty()) {
        return msg("inconclusive: every headline figure is within tolerance, but {disturbed}, and a figure measured "
                   "beside another process's work cannot vouch for the lesson",
                   arg("disturbed", disturbed_phrase(c)));
      }
      return msg("inconclusive: too noisy to judge: {undecided}, and {disturbed}",
                 arg("undecided", listed(undecided)), arg("disturbed", disturbed_phrase(c)));
    }
    case CompareVerdict::fails: break;
  }
  const Message failures = listed(c.failures());
  const auto undecided = c.undecided();
  if (undecided.empty()) return msg("B does not hold against A: {failures}", arg("failures", failures));
  return msg("B does not hold against A: {failures}; too noisy to judge: {undecided}, as {disturbed}",
             arg("failures", failures), arg("undecided", listed(undecided)),
             arg("disturbed", disturbed_phrase(c)));
}

// "verify results: A pass, B FAIL", with " (headline check)" for a headline expect check.
Message check_line(const CheckComparison& x) {
  const MessageArg key = arg("key", x.key);
  const MessageArg a = arg("a", verdict_of(x.a));
  const MessageArg b = arg("b", verdict_of(x.b));
  if (x.kind == CheckKind::verify) {
    return x.headline ? msg("verify {key}: A {a}, B {b} (headline check)", key, a, b)
                      : msg("verify {key}: A {a}, B {b}", key, a, b);
  }
  return x.headline ? msg("expect {key}: A {a}, B {b} (headline check)", key, a, b)
                    : msg("expect {key}: A {a}, B {b}", key, a, b);
}

void metric_rows_text(std::ostringstream& out, const Comparison& c, std::size_t width, Lang lang) {
  // After the name: "  " A(10) " " B(10) " " B/A(7) " " ±(5) "  " verdict(7: "missing").
  constexpr std::size_t kNumbers = 2 + 10 + 1 + 10 + 1 + 7 + 1 + 5 + 2 + 7;
  const std::size_t name_width = std::clamp<std::size_t>(width > 2 + kNumbers ? width - 2 - kNumbers : 0, 8, 48);
  const std::string title = tr(lang, name_width >= 13 ? "metric (unit)" : "metric");
  out << fmt::format("\n  {}  {:>10} {:>10} {:>7} {:>5}\n", pad_right(title, name_width), "A", "B", "B/A", "±");
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    const std::string name = fmt::format("{} ({})", m.key, m.unit);
    const std::string numbers = fmt::format("  {:>10} {:>10} {:>7} {:>5}  {}", value_text(m.a), value_text(m.b),
                                            ratio ? fmt::format("{:.2f}×", *ratio) : "—",
                                            percent_text(m.tolerance), tr(lang, metric_verdict(m)));
    const char* mark = m.headline ? "* " : "  ";
    if (display_width(name) <= name_width) {
      out << mark << pad_right(name, name_width) << numbers << '\n';
      continue;
    }
    // A name wider than its column takes a line of its own (folded if it is wider than the line).
    const auto lines = wrap_text(name, std::max<std::size_t>(width, 20) - 2);
    for (std::size_t i = 0; i < lines.size(); ++i) out << (i == 0 ? mark : "  ") << lines[i] << '\n';
    out << std::string(2 + name_width, ' ') << numbers << '\n';
  }
  put_wrapped(out,
              tr(lang, "* headline metric: out of tolerance it fails the comparison, or leaves it inconclusive when a "
                       "run was disturbed"),
              width, 2, 4);
}

// Text for a terminal, in the student's language: every fixed phrase goes through the zh
// catalogue (course-notes/zh/labels/cli.po); keys, units, numbers and file names stay as they are.
void comparison_text(std::ostringstream& out, const Comparison& c, std::size_t width, Lang lang) {
  put_wrapped(out,
              tr(lang, msg("compare · lesson {number} {slug}", arg("number", fmt::format("{:02d}", c.a->report.lesson_number)),
                           arg("slug", c.a->report.lesson_slug))),
              width, 0, 2);
  for (const auto* run : {c.a, c.b}) {
    const auto& disturbance = run == c.a ? c.disturbance_a : c.disturbance_b;
    const auto source = wrap_text(tr(lang, source_words(*run)), std::max<std::size_t>(width, 25) - 5);
    for (std::size_t i = 0; i < source.size(); ++i) {
      out << (i == 0 ? (run == c.a ? "  A  " : "  B  ") : "     ") << source[i] << '\n';
    }
    put_packed(out, spoken(run_items(*run, disturbance), lang), width, 5, " · ");
    if (!disturbance.empty()) put_wrapped(out, tr(lang, environment_text(disturbance)), width, 5, 7);
  }
  for (const auto& p : c.params) {
    const Message change =
        msg("param {name}: {a} → {b}", arg("name", p.name), arg("a", value_or_dash(p.a)), arg("b", value_or_dash(p.b)));
    put_wrapped(out, tr(lang, change), width, 2, 4);
  }
  metric_rows_text(out, c, width, lang);
  for (const auto& x : c.checks) {
    if (x.a != x.b) put_wrapped(out, tr(lang, check_line(x)), width, 2, 4);
  }
  put_wrapped(out, tr(lang, verdict_sentence(c)), width, 2, 4);
}

// A markdown table's heading row, each cell's words in `lang` (the letters A and B, and B/A, are
// data), and the row that aligns its columns.
void md_heading(std::ostringstream& out, const std::vector<Message>& cells, const std::string& alignment, Lang lang) {
  std::string line = "|";
  for (const auto& cell : cells) {
    const std::string text = md_cell(tr(lang, cell));
    line += text.empty() ? " |" : " " + text + " |";
  }
  out << line << '\n' << alignment << '\n';
}

// Markdown for a course page, in the student's language as the text form is: headings, verdicts
// and fixed phrases through the catalogue; keys, units, numbers and file names as they are.
void comparison_md(std::ostringstream& out, const Comparison& c, Lang lang) {
  out << "### "
      << tr(lang, msg("Lesson {number} {slug}: B against A", arg("number", fmt::format("{:02d}", c.a->report.lesson_number)),
                      arg("slug", c.a->report.lesson_slug)))
      << "\n\n";
  md_heading(out, {"run", "file", "device · recorded · integrity · environment", "why disturbed"}, "|---|---|---|---|", lang);
  for (const auto* run : {c.a, c.b}) {
    const auto& disturbance = run == c.a ? c.disturbance_a : c.disturbance_b;
    out << fmt::format("| {} | {} | {} | {} |\n", run == c.a ? "A" : "B", md_cell(tr(lang, source_words(*run))),
                       md_cell(join_words(spoken(run_items(*run, disturbance), lang), " · ")),
                       md_cell(tr(lang, listed(disturbance))));
  }
  for (const auto& p : c.params) {
    out << '\n'
        << tr(lang, msg("Param `{name}`: {a} → {b}", arg("name", p.name), arg("a", md_cell(p.a)), arg("b", md_cell(p.b))))
        << '\n';
  }
  out << '\n';
  md_heading(out,
             {Message(), "metric", "unit", verbatim("A"), verbatim("B"), verbatim("B/A"), "tolerance", "verdict"},
             "|---|---|---|---:|---:|---:|---:|---|", lang);
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    out << fmt::format("| {} | {} | {} | {} | {} | {} | ±{}{} | {} |\n", m.headline ? tr(lang, "**headline**") : "",
                       md_cell(m.key), md_cell(m.unit), value_text(m.a), value_text(m.b),
                       ratio ? fmt::format("{:.3f}", *ratio) : "—", percent_text(m.tolerance),
                       m.capped ? " " + tr(lang, "(capped)") : "", tr(lang, metric_verdict(m)));
  }
  out << '\n';
  md_heading(out, {"check", "kind", "headline", verbatim("A"), verbatim("B")}, "|---|---|---|---|---|", lang);
  for (const auto& x : c.checks) {
    out << fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(x.key), tr(lang, kind_name(x.kind)),
                       x.headline ? tr(lang, "yes") : "", tr(lang, verdict_of(x.a)), tr(lang, verdict_of(x.b)));
  }
  out << "\n" << tr(lang, "**Verdict:**") << ' ' << md_cell(tr(lang, verdict_sentence(c))) << "\n\n";
}

void comparison_csv(std::ostringstream& out, const Comparison& c) {
  const std::string files = csv_field(c.a->source) + "," + csv_field(c.b->source);
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    out << fmt::format("{},metric,{},{},{},{},{},{},{},{}\n", files, csv_field(m.key), csv_field(m.unit),
                       m.headline ? "yes" : "no", m.a ? fmt::format("{}", *m.a) : "", m.b ? fmt::format("{}", *m.b) : "",
                       ratio ? fmt::format("{:.6g}", *ratio) : "", fmt::format("{:.6g}", 100.0 * m.tolerance),
                       metric_verdict(m));
  }
  for (const auto& x : c.checks) {
    out << fmt::format("{},{},{},,{},{},{},,,{}\n", files, kind_name(x.kind), csv_field(x.key), x.headline ? "yes" : "no",
                       verdict_of(x.a).en(), verdict_of(x.b).en(), x.a == x.b ? "same" : "differs");
  }
  // Each run's environment (the verdict column: clean, or disturbed and why), then the verdict.
  out << fmt::format("{},environment,A,,,,,,,{}\n", files, csv_field(environment_text(c.disturbance_a).en()));
  out << fmt::format("{},environment,B,,,,,,,{}\n", files, csv_field(environment_text(c.disturbance_b).en()));
  const char* verdict = c.verdict() == CompareVerdict::holds ? "holds"
                        : c.verdict() == CompareVerdict::inconclusive ? "inconclusive"
                                                                      : "fails";
  out << fmt::format("{},verdict,{},,,,,,,{}\n", files, verdict, csv_field(verdict_sentence(c).en()));
}

// The headline metrics of a run as "key value unit" items.
std::vector<std::string> headline_items(const Report& r) {
  std::vector<std::string> items;
  for (const auto& key : r.headline_metric_keys()) {
    if (const Metric* m = r.find_metric(key); m != nullptr && !m->samples.empty()) {
      items.push_back(fmt::format("{} {} {}", key, format_number(m->summary().median), m->unit));
    }
  }
  return items;
}

// How many checks of `kind` passed, of how many.
std::pair<std::size_t, std::size_t> count_checks(const Report& r, CheckKind kind) {
  std::size_t passed = 0, total = 0;
  for (const auto& c : r.checks) {
    if (c.kind != kind) continue;
    ++total;
    passed += c.passed ? 1 : 0;
  }
  return {passed, total};
}

std::string tally(const Report& r, CheckKind kind) {
  const auto [passed, total] = count_checks(r, kind);
  return fmt::format("{} {}/{}", passed == total ? "✓" : "✗", passed, total);
}

std::string lesson_of(const Report& r) { return fmt::format("{:02d} {}", r.lesson_number, r.lesson_slug); }
// The node the run was made on (its scheduler's, else its host); "" when the run does not say.
std::string node_of(const Report& r) { return r.provenance ? r.provenance->node() : std::string(); }

// Who handed the run in and where it ran, for the line under a row: "handed in by alice", "node n3".
std::vector<Message> who_and_where(const GradeRow& row) {
  std::vector<Message> items;
  if (!row.student.empty()) items.push_back(msg("handed in by {student}", arg("student", row.student)));
  if (row.run != nullptr && !node_of(row.run->report).empty()) {
    items.push_back(msg("node {node}", arg("node", node_of(row.run->report))));
  }
  return items;
}

// The verdict cells of a grade row, after the file, in `lang`: lesson, verify, expect, integrity,
// environment (an unreadable file has one: "unreadable").
std::vector<std::string> grade_cells(const GradeRow& row, Lang lang) {
  if (row.run == nullptr) return {tr(lang, "unreadable")};
  const Report& r = row.run->report;
  return {lesson_of(r), tr(lang, msg("verify {tally}", arg("tally", tally(r, CheckKind::verify)))),
          tr(lang, msg("expect {tally}", arg("tally", tally(r, CheckKind::expect)))),
          tr(lang, integrity_name(row.run->integrity.state)), tr(lang, r.disturbed() ? "disturbed" : "clean")};
}

// Column widths of the text table: the file, then each verdict cell.
std::vector<std::size_t> grade_columns(const std::vector<GradeRow>& rows, Lang lang) {
  std::vector<std::size_t> widths(6, 0);
  for (const auto& row : rows) {
    widths[0] = std::max(widths[0], display_width(row.file));
    const auto cells = grade_cells(row, lang);
    for (std::size_t i = 0; i < cells.size(); ++i) widths[i + 1] = std::max(widths[i + 1], display_width(cells[i]));
  }
  return widths;
}

// `cells` padded to `widths` (from widths[first]), two spaces apart, trailing spaces trimmed.
std::string aligned(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths, std::size_t first) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) line += (i == 0 ? "" : "  ") + pad_right(cells[i], widths[first + i]);
  return line.substr(0, line.find_last_not_of(' ') + 1);
}

std::size_t columns_width(const std::vector<std::size_t>& widths, std::size_t first) {
  std::size_t total = 0;
  for (std::size_t i = first; i < widths.size(); ++i) total += widths[i] + (i == first ? 0 : 2);
  return total;
}

// One run: its file and verdicts on one line when the whole table fits; else the file on a line
// of its own and the verdicts under it (in columns while they fit, then packed); then the device
// and headline figures, then why it fails.
void grade_text_row(std::ostringstream& out, const GradeRow& row, const std::vector<std::size_t>& widths,
                    std::size_t width, Lang lang) {
  const auto cells = grade_cells(row, lang);
  if (2 + columns_width(widths, 0) <= width) {
    out << "  " << pad_right(row.file, widths[0]) << "  " << aligned(cells, widths, 1) << '\n';
  } else {
    put_wrapped(out, row.file, width, 2, 2);
    if (6 + columns_width(widths, 1) <= width) {
      out << "      " << aligned(cells, widths, 1) << '\n';
    } else {
      put_packed(out, cells, width, 6);
    }
  }
  if (row.run == nullptr) {
    put_wrapped(out, tr(lang, row.problem), width, 6, 8);
    return;
  }
  std::vector<std::string> figures = spoken(who_and_where(row), lang);
  figures.push_back(tr(lang, device_of(row.run->report)));
  for (auto& item : headline_items(row.run->report)) figures.push_back(std::move(item));
  put_packed(out, figures, width, 6, " · ");
  if (row.superseded) {
    put_wrapped(out, tr(lang, "superseded by a later submission of the same lesson: only the latest counts"), width, 6, 8);
    return;
  }
  for (const auto& why : grade_problems(row)) put_wrapped(out, tr(lang, why), width, 6, 8);
}

// Why a row does not count, or why it fails: for markdown and CSV.
Message row_problems(const GradeRow& row) {
  if (row.superseded) return "superseded by a later submission";
  return listed(grade_problems(row));
}

// The markdown cells of a row, its words in `lang`.
std::vector<std::string> grade_fields(const GradeRow& row, Lang lang) {
  const Report* r = row.run != nullptr ? &row.run->report : nullptr;
  return {row.file,
          row.student,
          r ? node_of(*r) : "",
          r ? lesson_of(*r) : "",
          r ? tr(lang, device_of(*r)) : "",
          r ? join_words(headline_items(*r), "; ") : "",
          r ? tally(*r, CheckKind::verify) : "",
          r ? tally(*r, CheckKind::expect) : "",
          tr(lang, r ? row.run->integrity.describe() : Message("unreadable")),
          r ? tr(lang, r->disturbed() ? "disturbed" : "clean") : "",
          tr(lang, row_problems(row))};
}

constexpr const char* kGradeCsvHeader =
    "file,student,node,lesson,lesson_name,device,build,recorded_at,headline,verify_passed,verify_total,"
    "expect_passed,expect_total,integrity,environment,superseded,problems,passes\n";

// The CSV cells of a row: numbers in the number columns (lesson, check counts, 1/0 flags), so
// that a spreadsheet sums them.
std::vector<std::string> grade_csv_fields(const GradeRow& row) {
  const Report* r = row.run != nullptr ? &row.run->report : nullptr;
  const auto verify = r ? count_checks(*r, CheckKind::verify) : std::pair<std::size_t, std::size_t>{};
  const auto expect = r ? count_checks(*r, CheckKind::expect) : std::pair<std::size_t, std::size_t>{};
  const auto number = [r](std::size_t n) { return r ? std::to_string(n) : std::string(); };
  return {row.file,
          row.student,
          r ? node_of(*r) : "",
          r ? std::to_string(r->lesson_number) : "",
          r ? r->lesson_slug : "",
          r ? device_of(*r).en() : "",
          r ? r->tool_version : "",
          r ? r->recorded_at : "",
          r ? join_words(headline_items(*r), "; ") : "",
          number(verify.first),
          number(verify.second),
          number(expect.first),
          number(expect.second),
          r ? row.run->integrity.describe().en() : "unreadable",
          r ? (r->disturbed() ? "disturbed" : "clean") : "",
          row.superseded ? "1" : "0",
          row_problems(row).en(),
          grade_passes(row) ? "1" : "0"};
}

}  // namespace

std::string render_comparisons(const std::vector<Comparison>& comparisons, TableFormat format, std::size_t width,
                               Lang lang) {
  std::ostringstream out;
  if (format == TableFormat::csv) out << "baseline,run,kind,key,unit,headline,baseline_value,run_value,ratio,tolerance_percent,verdict\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (format == TableFormat::text) {
      if (i > 0) out << '\n';
      comparison_text(out, comparisons[i], width, lang);
    } else if (format == TableFormat::md) {
      comparison_md(out, comparisons[i], lang);
    } else {
      comparison_csv(out, comparisons[i]);
    }
  }
  return out.str();
}

std::string render_grades(const std::vector<GradeRow>& rows, TableFormat format, std::size_t width, Lang lang) {
  std::ostringstream out;
  const auto widths = grade_columns(rows, lang);
  if (format == TableFormat::csv) {
    out << kGradeCsvHeader;
  } else if (format == TableFormat::md) {
    md_heading(out,
               {"file", "student", "node", "lesson", "device", "headline", "verify", "expect", "integrity", "environment",
                "problems"},
               "|---|---|---|---|---|---|---|---|---|---|---|", lang);
  }
  for (const auto& row : rows) {
    if (format == TableFormat::text) {
      grade_text_row(out, row, widths, width, lang);
    } else if (format == TableFormat::csv) {
      std::vector<std::string> fields = grade_csv_fields(row);
      for (auto& field : fields) field = csv_field(field);
      out << join_words(fields, ",") << '\n';
    } else {
      std::vector<std::string> fields = grade_fields(row, lang);
      for (auto& field : fields) field = md_cell(field);
      out << "| " << join_words(fields, " | ") << " |\n";
    }
  }
  if (format != TableFormat::csv) {
    const auto superseded = static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), [](const GradeRow& r) { return r.superseded; }));
    const std::size_t counted = rows.size() - superseded;
    const auto passing = static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), grade_passes)) - superseded;
    out << '\n';
    const MessageArg pass = arg("passing", passing);
    const MessageArg of = arg("counted", counted);
    const Message summary =
        counted == 1 ? msg("{passing} of {counted} run pass: readable, not modified, the student's own and as assigned, "
                           "clean (no other process on the GPU while it measured, no noisy headline metric) and every "
                           "verify check passed",
                           pass, of)
                     : msg("{passing} of {counted} runs pass: readable, not modified, the student's own and as assigned, "
                           "clean (no other process on the GPU while it measured, no noisy headline metric) and every "
                           "verify check passed",
                           pass, of);
    put_wrapped(out, tr(lang, summary), width, 0, 2);
    if (superseded > 0) {
      const Message earlier =
          superseded == 1
              ? msg("{count} earlier submission superseded: only a student's latest run of a lesson counts",
                    arg("count", superseded))
              : msg("{count} earlier submissions superseded: only a student's latest run of a lesson counts",
                    arg("count", superseded));
      put_wrapped(out, tr(lang, earlier), width, 0, 2);
    }
  }
  return out.str();
}

}  // namespace cudalab
