// What `grade` holds a class's runs to beyond each run's own verdicts: that the run is the
// student's own (not a copy of a built-in reference run, not a run another student handed in
// too, made by the user who handed it in), and that it is the run assigned (the lesson its name
// and the class name, the assigned flags, the class's build and GPUs, inside the assignment's
// dates). Each finding is one reason on the run's row. Only the latest submission of a student
// for a lesson counts; earlier ones are marked superseded. Pure: the CLI reads the files and the
// class preset, and knows the course (README, "Running a course", what each check can and
// cannot catch).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/grading/grade_rows.hpp"
#include "common/grading/roster.hpp"

namespace cudalab {

// What the class assigns (the [grade] section of its preset, and its lesson sections). Every part
// may be empty, and then holds nothing back.
struct ClassPolicy {
  std::vector<int> lessons;                   // the assigned lessons; empty: any
  std::map<int, std::string> lesson_names;    // "03 stream-overlap", for the gradebook's columns
  std::map<int, std::vector<Param>> params;   // per lesson, the assigned flags as a run prints them
  std::string build;                          // the class's cudalab build, "0.1.0+527b0d19ea9f"
  std::vector<std::string> gpus;              // GPU names or UUIDs the runs must come from
  std::string opens, due;                     // "2026-11-20T09:00:00Z"; "" for no bound
  // A hand-in counts as on time until due + grace, or until the student's extension (by the name
  // `grade` shows for them) plus grace.
  int grace_minutes = 0;
  std::map<std::string, std::string> extensions;  // student -> "2026-11-27T09:00:00Z"
  // Whether a run must carry the class seal (class_seal.hpp) to pass: [grade] seal = "class", the
  // default, or "none" for a class without a key, where `grade` says that seals go unchecked.
  bool class_seal = true;
  // The students of the class ([grade] roster): each is a gradebook row, with or without hand-ins.
  std::vector<RosterStudent> roster;
  // Points for each prediction (--predict) in the band (predict.hpp), in Gradescope's score
  // ([grade] prediction_points; 0: shown in every form, scored in none).
  int prediction_points = 1;
  // What the lab ships for each exercise (by id: "03-stream-overlap"), stripped of comments and
  // whitespace (source_copies.hpp): a source handed in that is the solution is flagged; one that
  // is still the starter is nobody's copy (it fails on its own).
  struct ShippedCode {
    std::string solution, starter;
  };
  std::map<std::string, ShippedCode> shipped;
};

// Marks earlier submissions superseded (per student and lesson, the latest hand-in by the kernel's
// status-change time, then by name, counts; rows of no known student are each their own), then sets each counting
// row's flags. A row shares a run with another student's counting row or earlier submission.
void check_class_runs(std::vector<GradeRow>& rows, const ClassPolicy& policy);

// The students × lessons view of the counting rows: 1 passed, 0 did not, missing when none.
struct Gradebook {
  std::vector<std::string> students;  // sorted: the roster's and those who handed in; rows of no known student are left out
  std::map<std::string, RosterStudent> roster;  // by user: the LMS's ids of the students on the roster
  std::vector<int> lessons;           // the assigned ones, else every lesson a row holds
  std::map<int, std::string> lesson_names;
  std::map<std::pair<std::string, int>, const GradeRow*> cells;
  int prediction_points = 1;  // ClassPolicy's

  const GradeRow* cell(const std::string& student, int lesson) const;
  // "03 stream-overlap", or "03" for a lesson it has no name of.
  std::string lesson_name(int lesson) const;
  std::size_t passed(const std::string& student) const;
  // The students on the roster with no counting run of an assigned lesson, and those lessons.
  std::vector<std::pair<std::string, std::vector<int>>> missing() const;
};
Gradebook make_gradebook(const std::vector<GradeRow>& rows, const ClassPolicy& policy);

// Text, markdown or CSV: one row per student, one column per lesson (✓, ✗ or —; in CSV 1, 0 or
// empty), then how many lessons passed of how many.
std::string render_gradebook(const Gradebook& book, TableFormat format, std::size_t width, Lang lang = Lang::en);

// One student's feedback (grade --feedback DIR): markdown, a section per lesson of the gradebook
// with the run, its figures and predictions, the grader's re-run and why it does not pass.
std::string render_feedback(const Gradebook& book, const std::string& student, Lang lang = Lang::en);

// Gradescope's autograder results.json for one student's submission (every row is theirs): a
// test per lesson (score 1 of 1 when it passes; the reasons when not), the file that was not a
// run as a test of no points, and the total score. The words of its outputs and names in `lang`.

std::string render_gradescope(const std::vector<GradeRow>& rows, const Gradebook& book, Lang lang = Lang::en);

}  // namespace cudalab
