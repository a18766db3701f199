// One row of `cudalab grade` per file of a class's folder: the submitted run, or why the file is
// not one, and who handed it in; whether the row passes, and why not. A pure function of saved
// runs (report_json.hpp, SavedRun), so grading works without a GPU; class_checks.hpp adds the
// class's own checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/report_json.hpp"

namespace cudalab {

// The grader's own run of the exercise source a handed-in run carries (grade --rerun,
// cli/rerun.hpp): what grade judges an exercise by, as an autograder runs the student's code itself.
struct Rerun {
  Message status;                 // "done", "wrong result", "does not compile", ... (words)
  std::string headline;           // its headline figures, "2.21× over one stream; ..." (data)
  std::vector<Message> problems;  // why it fails, one phrase each; empty: it passes
};

// One row of `cudalab grade`: a submitted run, or a file that is not one.
struct GradeRow {
  std::string file;
  const SavedRun* run = nullptr;  // null when the file could not be read
  Message problem;                // then why, one line

  // Who handed it in, and when (grading/class_checks.hpp).
  std::string student;                  // "" when the file does not say
  std::optional<long long> owner_uid;   // the file's owner, when the kernel says who the student is
  double submitted_s = 0;               // the file's status-change time (files.hpp): the latest counts
  std::optional<int> named_lesson;      // the one lesson its file name names, if it names one
  bool superseded = false;              // a later submission of the same student and lesson counts
  std::vector<Message> flags;           // why it cannot count as the student's own work, one each
  std::optional<Rerun> rerun;           // grade --rerun of an exercise run: the row passes only if it does
};

// Text, markdown or CSV: file, lesson, device, headline metrics, verify and expect verdicts,
// whether the run is intact and whether it was disturbed (with why). Then one line: how many runs
// pass (readable, intact or unsealed, clean, every verify check passed). Text keeps whole file
// names: a row whose name does not fit beside its verdicts puts them on the next line.
std::string render_grades(const std::vector<GradeRow>& rows, TableFormat format, std::size_t width,
                          Lang lang = Lang::en);
// A superseded row passes whatever it holds: only the latest submission counts.
bool grade_passes(const GradeRow& row);
// "the grader's re-run: done (its headline)".
Message rerun_words(const Rerun& rerun);
// Why a row does not pass, one phrase each (empty: it passes); the caller renders each phrase.
std::vector<Message> grade_problems(const GradeRow& row);

}  // namespace cudalab
