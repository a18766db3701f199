#include "cli/course.hpp"

#include "common/report/predict.hpp"
#include "common/report/reference_runs.hpp"

namespace cudalab {

const std::vector<CourseEntry>& course() { return registered_lessons(); }

const CourseEntry* find_course_entry(const std::string& word) { return find_lesson(word); }

bool asks_predictions(const CourseEntry& lesson) { return !questions_for(Lang::en, lesson.id()).empty(); }

TurnTimes course_turn_times() {
  TurnTimes times;
  for (const auto& lesson : course()) {
    if (const auto held = reference_turn_s(lesson.id())) times.by_lesson[lesson.id()] = *held;
  }
  return times;
}

}  // namespace cudalab
