// The course as the lessons describe themselves (common/lesson/registry.hpp): every folder under
// lessons/ registered, every description whole, and the README's table saying what they say.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/course.hpp"
#include "common/report/notes.hpp"
#include "common/report/reference_runs.hpp"

using namespace cudalab;

namespace {

// "03-stream-overlap" for every lessons/NN-* folder of the source tree.
std::set<std::string> lesson_folders() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(CUDALAB_SOURCE_DIR) + "/lessons")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
        std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '-') {
      names.insert(name);
    }
  }
  return names;
}

bool has_non_ascii(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
}

struct ReadmeRow {
  std::string number, slug, summary;
};

std::string trimmed(std::string s) {
  s.erase(0, s.find_first_not_of(' '));
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

// The rows of the README's lesson table: "| 03 | `stream-overlap` | summary |".
std::vector<ReadmeRow> readme_lesson_rows() {
  std::ifstream readme(std::string(CUDALAB_SOURCE_DIR) + "/README.md");
  std::vector<ReadmeRow> rows;
  for (std::string line; std::getline(readme, line);) {
    if (line.size() < 8 || line.compare(0, 2, "| ") != 0 || !std::isdigit(static_cast<unsigned char>(line[2]))) continue;
    std::vector<std::string> cells;
    std::istringstream in(line.substr(1));
    for (std::string cell; std::getline(in, cell, '|');) cells.push_back(trimmed(cell));
    if (cells.size() < 3 || cells[1].size() < 3 || cells[1].front() != '`') continue;
    std::string summary = cells[2];
    summary.erase(std::remove(summary.begin(), summary.end(), '`'), summary.end());  // `code` is markdown
    rows.push_back({cells[0], cells[1].substr(1, cells[1].size() - 2), summary});
  }
  return rows;
}

}  // namespace

// A registrar the linker dropped (a static library linked without --whole-archive) would leave
// its folder out of the course: every folder must be there.
TEST(Course, EveryLessonFolderRegisteredItself) {
  std::set<std::string> registered;
  for (const auto& lesson : course()) registered.insert(lesson.id());
  const std::set<std::string> folders = lesson_folders();
  ASSERT_FALSE(folders.empty());
  EXPECT_EQ(registered, folders) << "each lessons/NN-slug/lesson.cpp registers lesson NN named slug";
}

TEST(Course, EveryDescriptionIsWholeAndNamesOneLesson) {
  std::set<int> numbers;
  std::set<std::string> slugs;
  int previous = 0;
  for (const auto& lesson : course()) {
    SCOPED_TRACE(lesson.id());
    EXPECT_TRUE(numbers.insert(lesson.number).second) << "number given twice";
    EXPECT_TRUE(slugs.insert(lesson.slug).second) << "name given twice";
    EXPECT_GT(lesson.number, previous) << "in course order";
    previous = lesson.number;
    EXPECT_FALSE(lesson.title.en.empty());
    EXPECT_FALSE(lesson.summary.en.empty());
    EXPECT_TRUE(has_non_ascii(lesson.title.zh)) << lesson.title.zh;
    EXPECT_TRUE(has_non_ascii(lesson.summary.zh)) << lesson.summary.zh;
    EXPECT_GE(lesson.gpus_needed, 1);
    EXPECT_GT(reference_turn_s(lesson.id()).value_or(0), 0.0)
        << "its reference run's turn (queue.held_s): the queue's stated estimate of a turn";
    ASSERT_NE(lesson.make, nullptr);
    EXPECT_NE(lesson.make(), nullptr);
    EXPECT_FALSE(notes_keys(Lang::en, lesson.id()).empty()) << "course-notes/en/" << lesson.id() << ".md";
    EXPECT_FALSE(notes_keys(Lang::zh, lesson.id()).empty()) << "course-notes/zh/" << lesson.id() << ".md";
    EXPECT_TRUE(reference_run(lesson.id()).has_value()) << "course-notes/runs/" << lesson.id() << ".json";
    EXPECT_EQ(find_course_entry(lesson.slug), &lesson);
    EXPECT_EQ(find_course_entry(std::to_string(lesson.number)), &lesson);
  }
}

// The README's table says what the lessons say of themselves (number, name, summary), in order:
// a row for every lesson this build holds, and none for a lesson it does not.
TEST(Course, TheReadmeTableSaysWhatEachLessonSays) {
  const auto rows = readme_lesson_rows();
  ASSERT_FALSE(rows.empty()) << "README.md has no lesson table";
  int previous = 0;
  for (const auto& row : rows) {
    SCOPED_TRACE("README row " + row.number + " " + row.slug);
    const CourseEntry* lesson = find_course_entry(row.number);
    ASSERT_NE(lesson, nullptr) << "no lesson " << row.number;
    EXPECT_EQ(row.number, lesson->id().substr(0, 2));
    EXPECT_EQ(row.slug, lesson->slug);
    EXPECT_EQ(row.summary, lesson->summary.en);
    EXPECT_GT(lesson->number, previous) << "rows in course order";
    previous = lesson->number;
  }
  for (const auto& lesson : course()) {
    const auto listed = std::count_if(rows.begin(), rows.end(), [&](const ReadmeRow& r) { return r.slug == lesson.slug; });
    EXPECT_EQ(listed, 1) << "lesson " << lesson.id() << " needs one row in README.md's lesson table";
  }
  EXPECT_EQ(rows.size(), course().size()) << "one row per lesson";
}

// No lesson types its turn: the queue starts from what each reference run held, read from the
// run itself (cmake/EmbedRuns.cmake), and a run's JSON is the only place that figure lives.
TEST(Course, TheQueueStartsFromTheReferenceRunsTurns) {
  const TurnTimes times = course_turn_times();
  ASSERT_EQ(times.by_lesson.size(), course().size());
  for (const auto& lesson : course()) {
    SCOPED_TRACE(lesson.id());
    const auto run = reference_run(lesson.id());
    ASSERT_TRUE(run.has_value());
    const auto held = nlohmann::json::parse(*run).at("queue").at("held_s").get<double>();
    EXPECT_DOUBLE_EQ(times.by_lesson.at(lesson.id()), held);
  }
}
