// The three forms of `cudalab compare`: text for a terminal (every line fits `width`, nothing is
// cut: long names wrap or move to a line of their own), markdown for a course page or an issue,
// CSV for a spreadsheet (grade's rows: render_grades.cpp). Every string that came from a file was made printable
// when it was read (report_json.hpp).
#include <algorithm>
#include <string_view>
#include <sstream>

#include <fmt/format.h>

#include "common/grading/compare.hpp"
#include "common/grading/table_cells.hpp"
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

// "by GPU": a figure of the GPU's own, from runs on two GPUs, shown and not held.
const char* metric_verdict(const MetricComparison& m) {
  if (!m.a || !m.b) return "missing";
  if (m.other_gpu) return "by GPU";
  return m.within() ? "ok" : "OUT";
}

// Said once under the runs when they ran on different GPUs: what B is held to, and what not.
Message other_gpus_line(const Comparison& c) {
  return msg("A ran on {a} and B on {b}: B is held only to the figures that do not depend on the GPU (ratios, "
             "percents, counts and checks); times, bandwidths and sizes are shown beside A's, marked \"by GPU\"",
             arg("a", c.gpus_a.empty() ? std::string("?") : c.gpus_a),
             arg("b", c.gpus_b.empty() ? std::string("?") : c.gpus_b));
}

const char* environment_word(const std::vector<Message>& disturbance) {
  return disturbance.empty() ? "clean" : "disturbed";
}

// "clean", or "disturbed: 3 other processes worked on the GPU while the lesson measured; ..."
Message environment_text(const std::vector<Message>& disturbance) {
  if (disturbance.empty()) return "clean";
  return msg("disturbed: {reason}", arg("reason", listed(disturbance)));
}

// Device, date, integrity and environment of a run, for a line joined with " · ".
std::vector<Message> run_items(const SavedRun& run, const std::vector<Message>& disturbance) {
  return {device_of(run.report), verbatim(run.report.recorded_at), integrity_name(run.integrity.state),
          environment_word(disturbance)};
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
      for (const auto& m : c.metrics) headlines += m.headline && !m.other_gpu ? 1 : 0;
      if (c.other_gpus()) {
        if (headlines == 0) {
          return "B holds against A on another GPU: every verify check passed; its headline figures depend on the "
                 "GPU and are shown, not held";
        }
        if (headlines == 1) {
          return msg("B holds against A on another GPU: {count} headline metric that does not depend on the GPU "
                     "within tolerance, every verify check passed",
                     arg("count", headlines));
        }
        return msg("B holds against A on another GPU: {count} headline metrics that do not depend on the GPU "
                   "within tolerance, every verify check passed",
                   arg("count", headlines));
      }
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
  if (c.other_gpus()) {
    put_wrapped(out, tr(lang, "by GPU: a figure of the GPU's own, from two GPUs: shown beside A's, not held to it"),
                width, 2, 4);
  }
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
  if (c.other_gpus()) put_wrapped(out, tr(lang, other_gpus_line(c)), width, 2, 4);
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
  if (c.other_gpus()) out << '\n' << md_cell(tr(lang, other_gpus_line(c))) << '\n';
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

}  // namespace cudalab
