// The three forms of `cudalab compare` and `cudalab grade`: text for a terminal (fits `width`),
// markdown for a course page or an issue, CSV for a spreadsheet. Every string that came from a
// file was made printable when it was read (report_json.hpp).
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/report/compare.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

const char* kind_name(CheckKind kind) { return kind == CheckKind::verify ? "verify" : "expect"; }

std::string verdict_of(const std::optional<bool>& passed) { return !passed ? "—" : *passed ? "pass" : "FAIL"; }

std::string value_text(const std::optional<double>& v) { return v ? format_number(*v) : "—"; }

std::string metric_verdict(const MetricComparison& m) {
  if (!m.a || !m.b) return "missing";
  return m.within() ? "ok" : "OUT";
}

// Shortens to `width` columns with an ellipsis.
std::string fit(const std::string& text, std::size_t width) {
  if (display_width(text) <= width) return text;
  std::string out;
  for (char ch : text) {
    if (display_width(out) + 1 >= width && (static_cast<unsigned char>(ch) & 0xC0) != 0x80) break;
    out += ch;
  }
  return out + "…";
}

std::string run_line(const SavedRun& run) {
  const std::string device = run.report.devices.empty() ? "no device" : run.report.devices.front().name;
  return fmt::format("{} · {} · {}", device, run.report.recorded_at, integrity_name(run.integrity.state));
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string md_cell(const std::string& text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string verdict_sentence(const Comparison& c) {
  const auto failures = c.failures();
  std::size_t headlines = 0;
  for (const auto& m : c.metrics) headlines += m.headline ? 1 : 0;
  if (failures.empty()) {
    return fmt::format("B holds against A: {} headline metric{} within tolerance, every verify check passed",
                       headlines, headlines == 1 ? "" : "s");
  }
  std::string text = "B does not hold against A: ";
  for (std::size_t i = 0; i < failures.size(); ++i) text += (i == 0 ? "" : "; ") + failures[i];
  return text;
}

void comparison_text(std::ostringstream& out, const Comparison& c, std::size_t width) {
  const std::size_t prose = std::max<std::size_t>(40, width) - 4;
  out << fmt::format("compare · lesson {:02d} {}\n", c.a->report.lesson_number, c.a->report.lesson_slug);
  for (const auto* run : {c.a, c.b}) {
    out << fmt::format("  {}  {}\n     {}\n", run == c.a ? "A" : "B", fit(run->source, prose - 1), fit(run_line(*run), prose));
  }
  for (const auto& p : c.params) {
    out << fit(fmt::format("  param {}: {} → {}", p.name, p.a.empty() ? "—" : p.a, p.b.empty() ? "—" : p.b), width) << '\n';
  }
  const std::size_t name_width = std::clamp<std::size_t>(width, 60, 120) - 43;
  out << fmt::format("\n  {}  {:>10} {:>10} {:>7} {:>5}\n", pad_right("metric (unit)", name_width), "A", "B", "B/A", "±");
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    out << fmt::format("{} {}  {:>10} {:>10} {:>7} {:>5}  {}\n", m.headline ? "*" : " ",
                       pad_right(fit(fmt::format("{} ({})", m.key, m.unit), name_width), name_width), value_text(m.a),
                       value_text(m.b), ratio ? fmt::format("{:.2f}×", *ratio) : "—",
                       fmt::format("{:.0f}%", 100.0 * m.tolerance), metric_verdict(m));
  }
  out << "  * headline metric: out of tolerance, it fails the comparison\n";
  for (const auto& x : c.checks) {
    if (x.a == x.b) continue;
    out << fit(fmt::format("  {} {}: A {}, B {}", kind_name(x.kind), x.key, verdict_of(x.a), verdict_of(x.b)), width)
        << '\n';
  }
  for (const auto& line : wrap_text(verdict_sentence(c), prose)) out << "  " << line << '\n';
}

void comparison_md(std::ostringstream& out, const Comparison& c) {
  out << fmt::format("### Lesson {:02d} {}: B against A\n\n", c.a->report.lesson_number, c.a->report.lesson_slug);
  out << "| run | file | device · recorded · integrity |\n|---|---|---|\n";
  for (const auto* run : {c.a, c.b}) {
    out << fmt::format("| {} | {} | {} |\n", run == c.a ? "A" : "B", md_cell(run->source), md_cell(run_line(*run)));
  }
  for (const auto& p : c.params) out << fmt::format("\nParam `{}`: {} → {}\n", p.name, md_cell(p.a), md_cell(p.b));
  out << "\n| | metric | unit | A | B | B/A | tolerance | verdict |\n|---|---|---|---:|---:|---:|---:|---|\n";
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    out << fmt::format("| {} | {} | {} | {} | {} | {} | ±{:.0f}% | {} |\n", m.headline ? "**headline**" : "",
                       md_cell(m.key), md_cell(m.unit), value_text(m.a), value_text(m.b),
                       ratio ? fmt::format("{:.3f}", *ratio) : "—", 100.0 * m.tolerance, metric_verdict(m));
  }
  out << "\n| check | kind | A | B |\n|---|---|---|---|\n";
  for (const auto& x : c.checks) {
    out << fmt::format("| {} | {} | {} | {} |\n", md_cell(x.key), kind_name(x.kind), verdict_of(x.a), verdict_of(x.b));
  }
  out << "\n**Verdict:** " << md_cell(verdict_sentence(c)) << "\n\n";
}

void comparison_csv(std::ostringstream& out, const Comparison& c) {
  const std::string files = csv_field(c.a->source) + "," + csv_field(c.b->source);
  for (const auto& m : c.metrics) {
    const auto ratio = m.ratio();
    out << fmt::format("{},metric,{},{},{},{},{},{},{},{}\n", files, csv_field(m.key), csv_field(m.unit),
                       m.headline ? "yes" : "no", m.a ? fmt::format("{}", *m.a) : "", m.b ? fmt::format("{}", *m.b) : "",
                       ratio ? fmt::format("{:.6g}", *ratio) : "", fmt::format("{:.6g}", m.tolerance), metric_verdict(m));
  }
  for (const auto& x : c.checks) {
    out << fmt::format("{},{},{},,,{},{},,,{}\n", files, kind_name(x.kind), csv_field(x.key), verdict_of(x.a),
                       verdict_of(x.b), x.a == x.b ? "same" : "differs");
  }
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

std::string tally(const Report& r, CheckKind kind) {
  std::size_t passed = 0, total = 0;
  for (const auto& c : r.checks) {
    if (c.kind != kind) continue;
    ++total;
    passed += c.passed ? 1 : 0;
  }
  return fmt::format("{} {}/{}", passed == total ? "✓" : "✗", passed, total);
}

std::string lesson_of(const Report& r) { return fmt::format("{:02d} {}", r.lesson_number, r.lesson_slug); }
std::string device_of(const Report& r) { return r.devices.empty() ? "no device" : r.devices.front().name; }

void grade_text_row(std::ostringstream& out, const GradeRow& row, std::size_t width) {
  // The row without the file takes 62 columns (lesson 16, the two tallies, the integrity word).
  constexpr std::size_t kLessonWidth = 16;
  const std::size_t file_width = std::clamp<std::size_t>(width, 78, 140) - 62;
  const std::string file = pad_right(fit(row.file, file_width), file_width);
  if (row.run == nullptr) {
    out << fit(fmt::format("  {}  unreadable: {}", file, row.problem), width) << '\n';
    return;
  }
  const Report& r = row.run->report;
  out << fmt::format("  {}  {}  verify {}  expect {}  {}\n", file, pad_right(fit(lesson_of(r), kLessonWidth), kLessonWidth),
                     pad_right(tally(r, CheckKind::verify), 7), pad_right(tally(r, CheckKind::expect), 7),
                     integrity_name(row.run->integrity.state));
  std::string second = device_of(r);
  for (const auto& item : headline_items(r)) second += " · " + item;
  for (const auto& line : wrap_text(second, std::max<std::size_t>(width, 40) - 6)) out << "      " << line << '\n';
  if (row.run->integrity.state == Integrity::modified) out << fit("      " + row.run->integrity.describe(), width) << '\n';
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace

std::string render_comparisons(const std::vector<Comparison>& comparisons, TableFormat format, std::size_t width) {
  std::ostringstream out;
  if (format == TableFormat::csv) out << "baseline,run,kind,key,unit,headline,baseline_value,run_value,ratio,tolerance,verdict\n";
  for (std::size_t i = 0; i < comparisons.size(); ++i) {
    if (format == TableFormat::text) {
      if (i > 0) out << '\n';
      comparison_text(out, comparisons[i], width);
    } else if (format == TableFormat::md) {
      comparison_md(out, comparisons[i]);
    } else {
      comparison_csv(out, comparisons[i]);
    }
  }
  return out.str();
}

std::string render_grades(const std::vector<GradeRow>& rows, TableFormat format, std::size_t width) {
  std::ostringstream out;
  const std::size_t passing = static_cast<std::size_t>(std::count_if(rows.begin(), rows.end(), grade_passes));
  if (format == TableFormat::csv) {
    out << "file,lesson,device,headline,verify,expect,integrity,problem\n";
  } else if (format == TableFormat::md) {
    out << "| file | lesson | device | headline | verify | expect | integrity |\n|---|---|---|---|---|---|---|\n";
  }
  for (const auto& row : rows) {
    if (format == TableFormat::text) {
      grade_text_row(out, row, width);
      continue;
    }
    const Report* r = row.run != nullptr ? &row.run->report : nullptr;
    const std::string integrity = r == nullptr ? "unreadable" : row.run->integrity.describe();
    const std::vector<std::string> cells = {row.file, r ? lesson_of(*r) : "", r ? device_of(*r) : "",
                                            r ? joined(headline_items(*r), "; ") : "",
                                            r ? tally(*r, CheckKind::verify) : "", r ? tally(*r, CheckKind::expect) : "",
                                            integrity, row.problem};
    if (format == TableFormat::csv) {
      std::vector<std::string> quoted;
      for (const auto& cell : cells) quoted.push_back(csv_field(cell));
      out << joined(quoted, ",") << '\n';
    } else {
      std::vector<std::string> escaped;
      for (std::size_t i = 0; i + 1 < cells.size(); ++i) escaped.push_back(md_cell(i == 6 && r == nullptr ? "unreadable: " + row.problem : cells[i]));
      out << "| " << joined(escaped, " | ") << " |\n";
    }
  }
  if (format != TableFormat::csv) {
    out << fmt::format("\n{} of {} run{} pass: readable, not modified, every verify check passed\n", passing, rows.size(),
                       rows.size() == 1 ? "" : "s");
  }
  return out.str();
}

}  // namespace cudalab
