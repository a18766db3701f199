// Lesson 07's exercise on the GPU. The lab's side measures its yardstick in its own context: the
// step captured on one stream and with the lesson's fork/join, each replayed and verified, and
// the model's inputs. The child's side begins a capture, calls the student's capture(), ends it,
// reads the graph's shape, replays it as the lesson replays its own, checks every element, and
// draws one replay with CUPTI. A capture that fails to end (a branch never joined, an invalidated
// capture) is the verdict, in the student's terms.
#pragma once

#include <string>

#include "common/exercise/exercise_lesson.hpp"
#include "params.hpp"

namespace cudalab {
class StudentLibrary;
}

namespace cudalab::graph_forkjoin {

Report run_capture_exercise(const Params& p, const RunContext& ctx, const StudentBuild& build);

std::string serve_capture(const std::string& request, const StudentLibrary& library);

}  // namespace cudalab::graph_forkjoin
