#include <gtest/gtest.h>

#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "common/report/notes.hpp"

using namespace cudalab;

TEST(Notes, SectionsAreSplitByKeyMarkers) {
  const char* text =
      "# Title\n<!-- key: idea -->\n## The idea\n\nFirst line.\nSecond line.\n\n"
      "<!-- key: why -->\n## Why\nBecause.\n";
  EXPECT_EQ(detail::find_section(text, "idea").value(), "First line.\nSecond line.");
  EXPECT_EQ(detail::find_section(text, "why").value(), "Because.");
  EXPECT_FALSE(detail::find_section(text, "missing").has_value());
  EXPECT_EQ(detail::section_keys(text), (std::vector<std::string>{"idea", "why"}));
}

TEST(Notes, EveryBuiltLessonHasNotesInBothLanguagesWithTheSameKeys) {
  for (const auto& entry : course()) {
    const std::string file = (entry.number < 10 ? "0" : "") + std::to_string(entry.number) + "-" + entry.slug;
    const auto en = notes_keys(Lang::en, file);
    const auto zh = notes_keys(Lang::zh, file);
    EXPECT_FALSE(en.empty()) << file;
    EXPECT_EQ(en, zh) << file << ": en and zh notes must carry the same sections";
    for (const auto& key : en) {
      EXPECT_FALSE(notes_section(Lang::en, file, key)->empty()) << file << " en " << key;
      EXPECT_FALSE(notes_section(Lang::zh, file, key)->empty()) << file << " zh " << key;
    }
    EXPECT_TRUE(notes_section(Lang::en, file, "idea").has_value()) << file << " needs an 'idea' section";
  }
}

TEST(Notes, LanguageFromEnvironmentAndFlag) {
  setenv("LC_ALL", "zh_CN.UTF-8", 1);
  EXPECT_EQ(lang_from_environment(), Lang::zh);
  setenv("LC_ALL", "en_US.UTF-8", 1);
  EXPECT_EQ(lang_from_environment(), Lang::en);
  unsetenv("LC_ALL");
  unsetenv("LC_MESSAGES");
  setenv("LANG", "zh_TW.UTF-8", 1);
  EXPECT_EQ(lang_from_environment(), Lang::zh);
  setenv("LANG", "C", 1);
  EXPECT_EQ(lang_from_environment(), Lang::en);
  EXPECT_EQ(parse_lang("zh"), Lang::zh);
  EXPECT_THROW(parse_lang("xx"), UsageError);
}
