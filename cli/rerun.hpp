// grade --rerun: the grader's own run of every exercise source handed in, as Gradescope's
// autograder runs the student's code itself. For each counting row whose run carries an exercise
// source (report.hpp's ExerciseRecord), in a folder of its own that is removed afterwards: the
// source is written, compiled with this machine's nvcc, and run on the exercise's bench with the
// flags the hand-in recorded, taking its GPU turn like every student's run (cli/lesson_session.hpp).
// The student's code runs in a child confined to that folder (common/exercise/confinement.hpp), so
// it cannot read what the grader can. The row then passes only when the re-run does too.
#pragma once

#include <string>
#include <vector>

#include "cli/invocation.hpp"
#include "common/grading/grade_rows.hpp"

namespace cudalab {

// Fills `rerun` of every counting exercise row of the class's `folder`, saying on stderr which one
// runs (and when the confined code could still read `folder`). Throws
// WaivedError (exit 77) before any when this machine has no nvcc or no GPU, InterruptedError on
// Ctrl-C; any other problem of one source is that row's re-run's verdict.
void rerun_exercises(std::vector<GradeRow>& rows, const std::string& folder, const Invocation& inv);

}  // namespace cudalab
