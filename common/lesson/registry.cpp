#include "common/lesson/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cudalab {

namespace {

// Filled while the program starts, before main: a function-local static, so that it exists
// before the first registrar of any translation unit runs.
std::vector<LessonDescription>& registry() {
  static std::vector<LessonDescription> lessons;
  return lessons;
}

}  // namespace

LessonDescription&& LessonDescription::titled(std::string en, std::string zh) && {
  title = {std::move(en), std::move(zh)};
  return std::move(*this);
}

LessonDescription&& LessonDescription::summarized(std::string en, std::string zh) && {
  summary = {std::move(en), std::move(zh)};
  return std::move(*this);
}

LessonDescription&& LessonDescription::needs_gpus(int count) && {
  gpus_needed = count;
  return std::move(*this);
}

LessonDescription&& LessonDescription::made_by(Factory factory) && {
  make = factory;
  return std::move(*this);
}

std::string LessonDescription::id() const { return fmt::format("{:02d}-{}", number, slug); }

std::vector<std::string> LessonDescription::names() const {
  return {slug, fmt::format("{:02d}", number), std::to_string(number)};
}

bool LessonDescription::matches(const std::string& word) const {
  const auto all = names();
  return std::find(all.begin(), all.end(), word) != all.end();
}

void register_lesson(LessonDescription description) {
  auto& lessons = registry();
  const auto after = std::upper_bound(lessons.begin(), lessons.end(), description.number,
                                      [](int number, const LessonDescription& d) { return number < d.number; });
  lessons.insert(after, std::move(description));
}

const std::vector<LessonDescription>& registered_lessons() { return registry(); }

const LessonDescription* find_lesson(const std::string& word) {
  for (const auto& lesson : registered_lessons()) {
    if (lesson.matches(word)) return &lesson;
  }
  return nullptr;
}

}  // namespace cudalab
