// The reference runs shipped in course-notes/runs/ against the current code: `cudalab show`
// prints them as a reader expects (no raw Markdown), and their params are the ones each lesson
// declares today.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cli/course.hpp"
#include "cli/flags.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";

// Reference runs recorded before their lesson's flags changed. The lead re-records every
// reference run on the lab GPU; empty this list then.
const std::map<std::string, std::string> kKnownStale = {};

std::vector<std::filesystem::path> reference_runs() {
  std::vector<std::filesystem::path> runs;
  for (const auto& entry : std::filesystem::directory_iterator(kRuns)) {
    if (entry.path().extension() == ".json") runs.push_back(entry.path());
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

std::string without_ansi(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~' && text[i] != '[')) ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

// Long option names (without dashes) an App registers, in order, except help and output files
// (a FILE the run writes is not a parameter of the experiment, so reports leave it out).
std::vector<std::string> declared_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt == app.get_help_ptr() || opt->get_type_name().rfind("FILE", 0) == 0 || opt->get_lnames().empty()) continue;
    names.push_back(opt->get_lnames().front());
  }
  return names;
}

}  // namespace

TEST(ReferenceRuns, ShowPrintsNoRawMarkdownInEitherLanguage) {
  testing_support::hide_gpus();
  const auto runs = reference_runs();
  ASSERT_FALSE(runs.empty());
  for (const auto& run : runs) {
    for (const char* lang : {"en", "zh"}) {
      for (const char* color : {"never", "always"}) {
        const auto o = testing_support::run_cudalab({"show", run.string(), "--lang", lang, "--color", color});
        ASSERT_EQ(o.code, 0) << run << ": " << o.err;
        std::istringstream lines(without_ansi(o.out));
        std::string line;
        for (int number = 1; std::getline(lines, line); ++number) {
          const std::string where = run.filename().string() + " --lang " + lang + " line " + std::to_string(number);
          const std::size_t first = line.find_first_not_of(' ');
          EXPECT_FALSE(first != std::string::npos && line[first] == '|') << where << ": table row\n" << line;
          EXPECT_EQ(line.find("|---"), std::string::npos) << where << ": table rule\n" << line;
          EXPECT_EQ(line.find('`'), std::string::npos) << where << ": backtick\n" << line;
        }
      }
    }
  }
}

TEST(ReferenceRuns, ParamsAreTheOnesEachLessonDeclaresInOrder) {
  CommonFlags common_flags_value;
  CLI::App common;
  add_common_options(common, common_flags_value, lesson_flag_names());
  const auto common_names = declared_names(common);
  const std::set<std::string> common_set(common_names.begin(), common_names.end());
  for (const auto& run : reference_runs()) {
    const std::string file = run.filename().string();
    for (const auto& report : load_runs(run.string())) {
      const CourseEntry* entry = nullptr;
      for (const auto& e : course()) entry = e.number == report.lesson_number ? &e : entry;
      ASSERT_TRUE(entry != nullptr && entry->make != nullptr) << file << ": no lesson " << report.lesson_number;
      CLI::App app;
      auto lesson = entry->make();
      add_lesson_options(app, *lesson);
      const auto declared = declared_names(app);
      // A lesson may also report a flag every lesson has (01 reports --device).
      std::vector<std::string> recorded;
      for (const auto& p : report.params) {
        if (common_set.count(p.name) == 0) recorded.push_back(p.name);
      }
      const auto stale = kKnownStale.find(file);
      if (stale == kKnownStale.end()) {
        EXPECT_EQ(recorded, declared) << file << " was recorded with other params than " << entry->slug
                                      << " declares now: re-record it";
      } else if (recorded == declared) {
        ADD_FAILURE() << file << " matches its lesson again: remove it from kKnownStale";
      } else {
        std::cout << "[ stale    ] " << file << ": " << stale->second << '\n';
      }
    }
  }
}
