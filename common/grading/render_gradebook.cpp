// The gradebook of `cudalab grade` (students × lessons) in text, markdown and CSV, and one
// student's submission as Gradescope's autograder results.json
// (gradescope-autograders.readthedocs.io, "Autograder Specifications": a top-level score and
// output, and per test a name, score, max_score, status "passed" or "failed", and output).
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/core/text_format.hpp"
#include "common/grading/class_checks.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/predict.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// ✓, ✗ or — (text and markdown); 1, 0 or empty (CSV).
std::string mark(const GradeRow* row, bool csv) {
  if (row == nullptr) return csv ? "" : "—";
  const bool passes = grade_passes(*row);
  return csv ? (passes ? "1" : "0") : (passes ? "✓" : "✗");
}

void gradebook_text(std::ostringstream& out, const Gradebook& book, std::size_t width, Lang lang) {
  const Message title = msg("gradebook · students: {students} · lessons: {lessons} (✓ passed, ✗ did not, — no run)",
                            arg("students", book.students.size()), arg("lessons", book.lessons.size()));
  for (const auto& line : wrap_text(tr(lang, title), std::max<std::size_t>(width, 30))) {
    out << line << '\n';
  }
  // "  NAME  03  05  passed": two margins of 2, a name column of at least 8, each lesson 4
  // columns and the tally at most 10; 3 columns a lesson where 4 would not fit the terminal beside
  // the shortest name column (all eleven lessons at 60 columns).
  constexpr std::size_t margins = 4, shortest_name = 8, tally = 10;
  const std::size_t cell = margins + shortest_name + 4 * book.lessons.size() + tally <= width ? 4 : 3;
  const std::size_t cells = cell * book.lessons.size() + tally;
  std::size_t name_width = display_width(tr(lang, "student"));
  for (const auto& s : book.students) name_width = std::max(name_width, display_width(s));
  name_width = std::min(name_width, std::max(width > margins + cells ? width - margins - cells : 0, shortest_name));
  const std::string gap(cell - 2, ' ');
  std::string header = "  " + pad_right(tr(lang, "student"), name_width) + "  ";
  for (const int lesson : book.lessons) header += fmt::format("{:02d}", lesson) + gap;
  out << header << tr(lang, "passed") << '\n';
  for (const auto& student : book.students) {
    std::string row;
    for (const int lesson : book.lessons) row += mark(book.cell(student, lesson), false) + " " + gap;
    row += fmt::format("{}/{}", book.passed(student), book.lessons.size());
    if (display_width(student) <= name_width) {
      out << "  " << pad_right(student, name_width) << "  " << row << '\n';
      continue;
    }
    for (const auto& line : wrap_text(student, std::max<std::size_t>(width, 22) - 2)) out << "  " << line << '\n';
    out << std::string(4 + name_width, ' ') << row << '\n';
  }
}

// Markdown (its heading's words in `lang`) or CSV (English: its heading names columns for programs).
void gradebook_table(std::ostringstream& out, const Gradebook& book, bool csv, Lang lang) {
  const Lang heading_lang = csv ? Lang::en : lang;
  std::vector<std::string> header{tr(heading_lang, "student")};
  // With a roster, the columns an LMS import matches on: Canvas's "SIS User ID" (its own name for
  // it, in every language) and Moodle's email, with the name a person reads.
  const bool roster = !book.roster.empty();
  if (roster) header.insert(header.end(), {"SIS User ID", tr(heading_lang, "name"), tr(heading_lang, "email")});
  for (const int lesson : book.lessons) header.push_back(book.lesson_name(lesson));
  header.insert(header.end(), {tr(heading_lang, "passed"), tr(heading_lang, "lessons")});
  std::vector<std::vector<std::string>> rows{header};
  for (const auto& student : book.students) {
    std::vector<std::string> row{student};
    if (roster) {
      const auto on = book.roster.find(student);  // a student who handed in but is not on it: empty ids
      const RosterStudent none;
      const RosterStudent& s = on != book.roster.end() ? on->second : none;
      row.insert(row.end(), {s.id, s.name, s.email});
    }
    for (const int lesson : book.lessons) row.push_back(mark(book.cell(student, lesson), csv));
    row.push_back(std::to_string(book.passed(student)));
    row.push_back(std::to_string(book.lessons.size()));
    rows.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line;
    for (const auto& cell : rows[i]) {
      line += csv ? (line.empty() ? "" : ",") + csv_field(cell) : "| " + md_cell(cell) + " ";
    }
    out << line << (csv ? "\n" : "|\n");
    if (!csv && i == 0) {
      out << "|---|";
      const std::size_t ids = roster ? 3 : 0;
      for (std::size_t k = 1; k < rows[i].size(); ++k) out << (k <= ids ? "---|" : k + 2 >= rows[i].size() ? "---:|" : ":---:|");
      out << '\n';
    }
  }
}

// The test output of a lesson, in `lang`: the file, then why it does not pass, or what passed.
std::string test_output(const GradeRow& row, Lang lang) {
  const auto problems = grade_problems(row);
  std::string text = row.file + "\n";
  for (const auto& why : problems) text += "- " + tr(lang, why) + "\n";
  if (problems.empty()) text += tr(lang, "passes: intact, clean, every verify check passed") + "\n";
  return text;
}

}  // namespace

std::string render_gradebook(const Gradebook& book, TableFormat format, std::size_t width, Lang lang) {
  std::ostringstream out;
  if (format == TableFormat::text) {
    gradebook_text(out, book, width, lang);
  } else {
    gradebook_table(out, book, format == TableFormat::csv, lang);
  }
  return out.str();
}

std::string render_gradescope(const std::vector<GradeRow>& rows, const Gradebook& book, Lang lang) {
  nlohmann::json tests = nlohmann::json::array();
  double score = 0;
  for (const int lesson : book.lessons) {
    const GradeRow* row = nullptr;
    for (const auto& student : book.students) row = row != nullptr ? row : book.cell(student, lesson);
    const bool passes = row != nullptr && grade_passes(*row);
    score += passes ? 1 : 0;
    tests.push_back({{"name", book.lesson_name(lesson)},
                     {"score", passes ? 1 : 0},
                     {"max_score", 1},
                     {"status", passes ? "passed" : "failed"},
                     {"output", row != nullptr ? test_output(*row, lang)
                                               : tr(lang, "no run of this lesson was handed in") + "\n"},
                     {"visibility", "visible"}});
  }
  const double lessons_passing = score;
  // The predictions (--predict) of the lessons' counting runs: points for each in the band.
  PredictionScore predicted;
  for (const int lesson : book.lessons) {
    for (const auto& student : book.students) {
      if (const GradeRow* row = book.cell(student, lesson); row != nullptr && row->run != nullptr) {
        const PredictionScore p = score_predictions(row->run->report);
        predicted.in_band += p.in_band;
        predicted.made += p.made;
      }
    }
  }
  if (predicted.made > 0 && book.prediction_points > 0) {
    const double points = static_cast<double>(book.prediction_points);
    score += points * static_cast<double>(predicted.in_band);
    tests.push_back({{"name", tr(lang, "predictions")},
                     {"score", points * static_cast<double>(predicted.in_band)},
                     {"max_score", points * static_cast<double>(predicted.made)},
                     {"status", predicted.in_band == predicted.made ? "passed" : "failed"},
                     {"output", tr(lang, msg("{in_band} of {made} predictions within {band}% of what the run measured",
                                             arg("in_band", predicted.in_band), arg("made", predicted.made),
                                             arg("band", std::lround(100 * kPredictionBand)))) +
                                    "\n"},
                     {"visibility", "visible"}});
  }
  for (const auto& row : rows) {
    if (row.run != nullptr) continue;
    tests.push_back({{"name", tr(lang, msg("not a run: {file}", arg("file", row.file)))},
                     {"score", 0},
                     {"max_score", 0},
                     {"status", "failed"},
                     {"output", tr(lang, row.problem) + "\n"},
                     {"visibility", "visible"}});
  }
  const nlohmann::json results{
      {"score", score},
      {"output", tr(lang, msg("cudalab: {passing} of {lessons} lessons pass (intact, the submitter's own, as assigned, "
                              "clean, every verify check passed)",
                              arg("passing", fmt::format("{}", lessons_passing)), arg("lessons", book.lessons.size()))) +
                     "\n" +
                     tr(lang, "Each submission is graded alone here: a copy of a classmate's run is found only by grade "
                              "over the whole class's folder")},
      {"tests", tests}};
  return results.dump(2) + "\n";
}

}  // namespace cudalab
