#include "common/exercise/exercise.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cudalab {

namespace {

// Filled while the program starts, before main (as the lessons' registry is).
std::vector<ExerciseDescription>& registry() {
  static std::vector<ExerciseDescription> exercises;
  return exercises;
}

}  // namespace

ExerciseDescription&& ExerciseDescription::speaks(std::string interface, int version) && {
  interface_name = std::move(interface);
  interface_version = version;
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::goal_is(Message one_line) && {
  goal = std::move(one_line);
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::told(std::vector<Message> lines) && {
  task = std::move(lines);
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::hinted(std::vector<Message> in_order) && {
  hints = std::move(in_order);
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::files(std::string starter_text, std::string solution_text,
                                                 std::string header_text) && {
  starter = std::move(starter_text);
  solution = std::move(solution_text);
  header = std::move(header_text);
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::made_by(Factory factory) && {
  make = factory;
  return std::move(*this);
}

ExerciseDescription&& ExerciseDescription::served_by(Server server) && {
  serve = server;
  return std::move(*this);
}

std::string ExerciseDescription::id() const { return fmt::format("{:02d}-{}", lesson_number, lesson_slug); }
std::string ExerciseDescription::file_name() const { return id() + ".cu"; }
std::string ExerciseDescription::header_path() const {
  return fmt::format("cudalab/{}_v{}.h", interface_name, interface_version);
}

std::vector<std::string> ExerciseDescription::names() const {
  return {lesson_slug, fmt::format("{:02d}", lesson_number), std::to_string(lesson_number), id()};
}

bool ExerciseDescription::matches(const std::string& word) const {
  const auto all = names();
  return std::find(all.begin(), all.end(), word) != all.end();
}

void register_exercise(ExerciseDescription description) {
  auto& all = registry();
  const auto after = std::upper_bound(all.begin(), all.end(), description.lesson_number,
                                      [](int number, const ExerciseDescription& d) { return number < d.lesson_number; });
  all.insert(after, std::move(description));
}

const std::vector<ExerciseDescription>& registered_exercises() { return registry(); }

const ExerciseDescription* find_exercise(const std::string& word) {
  for (const auto& e : registered_exercises()) {
    if (e.matches(word)) return &e;
  }
  return nullptr;
}

}  // namespace cudalab
