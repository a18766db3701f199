// One student's feedback file (grade --feedback DIR, class_checks.hpp), as nbgrader hands a
// student back their graded work: markdown, a section per lesson of the gradebook, each with what
// was handed in, what the grader's re-run found and why it does not pass, in the student's terms.
#include <sstream>

#include "common/core/units.hpp"
#include "common/grading/class_checks.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/predict.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

void lesson_section(std::ostringstream& out, const Gradebook& book, const std::string& student, int lesson, Lang lang) {
  const GradeRow* row = book.cell(student, lesson);
  const std::string title = book.lesson_name(lesson);
  if (row == nullptr) {
    out << "## " << title << " — " << tr(lang, "no run handed in") << "\n\n";
    return;
  }
  const bool passes = grade_passes(*row);
  out << "## " << title << " " << (passes ? "✓ " : "✗ ") << tr(lang, passes ? "passed" : "did not pass") << "\n\n";
  const Report& r = row->run->report;
  out << "- " << tr(lang, msg("the run: {file}, made {time}", arg("file", md_cell(row->file)), arg("time", r.recorded_at)))
      << '\n';
  const auto figures = headline_items(r);
  if (!figures.empty()) out << "- " << tr(lang, msg("its figures: {figures}", arg("figures", md_cell(join_words(figures, "; "))))) << '\n';
  if (const PredictionScore p = score_predictions(r); p.made > 0) {
    out << "- " << tr(lang, msg("predictions {in_band} of {made} in the band", arg("in_band", p.in_band), arg("made", p.made)))
        << '\n';
  }
  if (row->rerun) {
    const Message status = rerun_words(*row->rerun);
    out << "- " << md_cell(tr(lang, status)) << '\n';
  }
  const auto problems = grade_problems(*row);
  if (!problems.empty()) {
    out << "\n" << tr(lang, "Why it does not pass:") << "\n\n";
    for (const auto& why : problems) out << "- " << md_cell(tr(lang, why)) << '\n';
  }
  out << '\n';
}

}  // namespace

std::string render_feedback(const Gradebook& book, const std::string& student, Lang lang) {
  std::ostringstream out;
  const auto on = book.roster.find(student);
  const std::string name = on != book.roster.end() && !on->second.name.empty() ? on->second.name + " (" + student + ")" : student;
  out << "# " << tr(lang, msg("cudalab feedback for {student}", arg("student", md_cell(name)))) << "\n\n";
  out << tr(lang, msg("{passed} of {lessons} lessons passed.", arg("passed", book.passed(student)),
                      arg("lessons", book.lessons.size())))
      << "\n\n";
  for (const int lesson : book.lessons) lesson_section(out, book, student, lesson, lang);
  return out.str();
}

}  // namespace cudalab
