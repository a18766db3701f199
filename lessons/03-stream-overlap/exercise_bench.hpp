// Lesson 03's exercise on the GPU. The lab's side measures its own yardstick (the stages, the
// kernel's iterations, one stream against its depth-first pipeline) in this process's context,
// then runs the student's pipeline() in a child (common/exercise/student_run.hpp) on the same
// shape. The child's side builds the same buffers and chunks, times the student's pipeline() as
// the lesson times its own, checks every byte, and traces one checked run with CUPTI, noting which
// chunk each copy and kernel belonged to (gpu/api_calls.hpp).
#pragma once

#include <string>

#include "common/exercise/exercise_lesson.hpp"
#include "params.hpp"

namespace cudalab {
class StudentLibrary;
}

namespace cudalab::stream_overlap {

Report run_pipeline_exercise(const Params& p, const RunContext& ctx, const StudentBuild& build);

std::string serve_pipeline(const std::string& request, const StudentLibrary& library);

}  // namespace cudalab::stream_overlap
