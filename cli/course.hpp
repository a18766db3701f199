// The course: the lessons this build holds, in course order, each as it describes itself in its
// own folder (common/lesson/registry.hpp). Nothing in cli/ names a lesson.
#pragma once

#include <string>
#include <vector>

#include "common/lesson/registry.hpp"
#include "common/queue/queue_line.hpp"

namespace cudalab {

using CourseEntry = LessonDescription;

const std::vector<CourseEntry>& course();

// The lesson `word` names (03, 3 or stream-overlap); nullptr when none does.
const CourseEntry* find_course_entry(const std::string& word);

// Whether the lesson's notes ask predict-first questions: only then does it take --predict.
bool asks_predictions(const CourseEntry& lesson);

// How long each lesson is stated to hold the GPU: its reference run's turn (queue.held_s). The
// queue's wait estimate and its rule for a stuck turn start from these, and use the turns a GPU
// has learned instead once it has enough (common/queue/turn_log.hpp); a lesson without a
// reference run counts as the others' median (TurnTimes::typical).
TurnTimes course_turn_times();

}  // namespace cudalab
