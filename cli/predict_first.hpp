// --predict: a lesson's questions, asked before its numbers are seen — before it measures (a
// lesson run), or before its recorded run is shown (`cudalab show 03 --predict`, no GPU needed).
#pragma once

#include <vector>

#include "cli/course.hpp"
#include "cli/flags.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// The answers, from --answers FILE or typed on the terminal; none without --predict. Throws
// UsageError when the lesson asks nothing (naming the lessons that do), or when there is neither
// a terminal nor a file to take the answers from.
std::vector<Guess> ask_predictions(const CourseEntry& lesson, const CommonFlags& flags, Lang lang);

}  // namespace cudalab
