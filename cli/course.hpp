// The course: every lesson in order, with its number, name and one-line summary. A lesson
// whose factory is null is announced by `cudalab list` but is not a subcommand yet.
#pragma once

#include <memory>
#include <vector>

#include "common/lesson/lesson.hpp"

namespace cudalab {

struct CourseEntry {
  int number;
  const char* slug;
  const char* title;
  const char* summary;
  std::unique_ptr<Lesson> (*make)();  // nullptr: not built yet
};

const std::vector<CourseEntry>& course();

}  // namespace cudalab
