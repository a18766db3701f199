// The three forms of `cudalab grade`'s rows, a class's submitted runs in one table: text for a
// terminal (whole file names: a row whose name does not fit beside its verdicts puts them on the
// next line), markdown for a course page, CSV for a spreadsheet. Every string that came from a
// file was made printable when it was read (report_json.hpp).
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/core/text_format.hpp"
#include "common/core/units.hpp"
#include "common/grading/grade_rows.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/predict.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

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

// "2/3": how many of the run's predictions (--predict) fell in the band, of how many it made.
std::string predictions_of(const Report& r) {
  const PredictionScore score = score_predictions(r);
  return score.made == 0 ? std::string() : fmt::format("{}/{}", score.in_band, score.made);
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
  if (const PredictionScore p = score_predictions(row.run->report); p.made > 0) {
    figures.push_back(tr(lang, msg("predictions {in_band} of {made} in the band", arg("in_band", p.in_band), arg("made", p.made))));
  }
  if (row.rerun) figures.push_back(tr(lang, rerun_words(*row.rerun)));
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
          r ? predictions_of(*r) : "",
          row.rerun ? tr(lang, row.rerun->status) : "",
          tr(lang, r ? row.run->integrity.describe() : Message("unreadable")),
          r ? tr(lang, r->disturbed() ? "disturbed" : "clean") : "",
          tr(lang, row_problems(row))};
}

constexpr const char* kGradeCsvHeader =
    "file,student,node,lesson,lesson_name,device,build,recorded_at,headline,verify_passed,verify_total,"
    "expect_passed,expect_total,predictions_in_band,predictions,rerun,integrity,environment,superseded,problems,passes\n";

// The CSV cells of a row: numbers in the number columns (lesson, check counts, 1/0 flags), so
// that a spreadsheet sums them.
std::vector<std::string> grade_csv_fields(const GradeRow& row) {
  const Report* r = row.run != nullptr ? &row.run->report : nullptr;
  const auto verify = r ? count_checks(*r, CheckKind::verify) : std::pair<std::size_t, std::size_t>{};
  const auto expect = r ? count_checks(*r, CheckKind::expect) : std::pair<std::size_t, std::size_t>{};
  const auto number = [r](std::size_t n) { return r ? std::to_string(n) : std::string(); };
  const PredictionScore predictions = r ? score_predictions(*r) : PredictionScore{};
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
          number(predictions.in_band),
          number(predictions.made),
          row.rerun ? row.rerun->status.en() : "",
          r ? row.run->integrity.describe().en() : "unreadable",
          r ? (r->disturbed() ? "disturbed" : "clean") : "",
          row.superseded ? "1" : "0",
          row_problems(row).en(),
          !row.superseded && grade_passes(row) ? "1" : "0"};  // a superseded row counts for nothing
}

}  // namespace

std::string render_grades(const std::vector<GradeRow>& rows, TableFormat format, std::size_t width, Lang lang) {
  std::ostringstream out;
  const auto widths = grade_columns(rows, lang);
  if (format == TableFormat::csv) {
    out << kGradeCsvHeader;
  } else if (format == TableFormat::md) {
    md_heading(out,
               {"file", "student", "node", "lesson", "device", "headline", "verify", "expect", "predictions", "re-run",
                "integrity", "environment", "problems"},
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|", lang);
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
