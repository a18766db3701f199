// The course: every lesson in order, with its number, name and one-line summary. A lesson
// whose factory is null is announced by `cudalab list` but is not a subcommand yet.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/lesson/lesson.hpp"

namespace cudalab {

struct CourseEntry {
  int number;
  const char* slug;
  const char* title;
  const char* summary;
  std::unique_ptr<Lesson> (*make)();  // nullptr: not built yet

  // "03-stream-overlap": the name of its notes file and of its reference run.
  std::string id() const;
  // "03", "3" or "stream-overlap".
  bool matches(const std::string& word) const;
  // The words that name it on the command line: its slug, "03" and "3".
  std::vector<std::string> names() const;
};

const std::vector<CourseEntry>& course();

// The lesson `word` names, built or not; nullptr when none does.
const CourseEntry* find_course_entry(const std::string& word);

}  // namespace cudalab
