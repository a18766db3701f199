// A class's folder of runs as `grade` reads it: the folder and its subfolders (a folder per
// student, or the drop folder), every *.json entry a row, whatever it is; who handed each run in
// (the file's owner, as the kernel says, when that is not the grader; else the student's folder,
// or the name before its first '-'), when (the file's status-change time, which its owner cannot set
// back as `touch` sets a modification time), and the lesson its name
// names. And the class policy `grade` holds the runs to, from the class preset (--config).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "cli/invocation.hpp"
#include "common/grading/class_checks.hpp"

namespace cudalab {

// Subfolders deeper than this are not read; more .json entries than this are refused. One student
// with more .json entries than kMaxStudentFiles fails alone (a row naming the limit), ungraded.
inline constexpr int kMaxClassDepth = 8;
inline constexpr std::size_t kMaxClassFiles = 100000;
inline constexpr std::size_t kMaxStudentFiles = 500;

struct ClassRuns {
  std::deque<SavedRun> runs;  // the rows point into it (a deque keeps its elements in place)
  std::vector<GradeRow> rows;
};

// DIR as given, else the class's drop folder; UsageError, one line, when there is neither.
std::string grade_folder(const Invocation& inv);

// Every *.json entry under `dir` (hidden names left out: a hand-in being written), a row each,
// sorted by path; a subfolder that cannot be read is a row too. UsageError when `dir` is not a
// folder that can be read, or holds no .json entry.
ClassRuns read_class_runs(const std::string& dir);

// The lesson a file name names, when it names exactly one: "erin-08-default-stream.json" -> 8.
std::optional<int> lesson_named_by(const std::string& file_name);

// What the class preset assigns: [grade] (lessons, build, gpus, opens, due) and each lesson's
// section (the assigned flags, as that lesson prints them in a run). UsageError naming the
// preset's line for a lesson or a flag value that is not one.
ClassPolicy class_policy(const Invocation& inv);

}  // namespace cudalab
