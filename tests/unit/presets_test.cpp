// Class presets read as TOML by toml++: what valid TOML it must accept, and the
// FILE:LINE [section] errors for what it must refuse.
#include <gtest/gtest.h>

#include <chrono>

#include "common/core/errors.hpp"
#include "cli/presets.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::slug_of;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_presets(text, "class.toml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Presets, AcceptsValidTomlThatPresetsUse) {
  const std::string text =
      "\xEF\xBB\xBF# a class preset\n"
      "[ " + slug_of(3) + " ]  # lesson 03\n"
      "streams = 8   # more streams\n"
      "size = \"64MiB\"\n"
      "memory = 'pinned'\n"
      "strict = true\n"
      "\n"
      "[all]\n"
      "lang = \"zh\"\n"
      "repeat = 1_000\n";
  const PresetFile f = parse_presets(text, "class.toml");
  ASSERT_EQ(f.sections.size(), 2u);
  const PresetSection* s = f.find(slug_of(3));
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->values.size(), 4u);
  EXPECT_EQ(s->values[0].text, "8");
  EXPECT_EQ(s->values[0].type, PresetValue::Type::integer);
  EXPECT_EQ(s->values[1].text, "64MiB");
  EXPECT_EQ(s->values[1].type, PresetValue::Type::string);
  EXPECT_EQ(s->values[2].text, "pinned");
  EXPECT_EQ(s->values[3].type, PresetValue::Type::boolean);
  EXPECT_EQ(s->values[3].line, 6);
  EXPECT_EQ(f.find("all")->values[1].text, "1000");
  EXPECT_EQ(preset_origin(f, *s, s->values[0]), "class.toml:3 [" + slug_of(3) + "]");
}

TEST(Presets, ErrorsNameTheFileTheLineAndTheSection) {
  // toml++ finds the syntax error; the message names FILE:LINE:COLUMN and the section above it.
  const std::string bare = error_of("[" + slug_of(3) + "]\nstreams = many\n");
  EXPECT_EQ(bare.rfind("--config class.toml:2:", 0), 0u) << bare;
  EXPECT_NE(bare.find("[" + slug_of(3) + "]"), std::string::npos) << bare;
  EXPECT_EQ(error_of("streams = 8\n"),
            "--config class.toml:1: streams is outside any section; put it under [lesson-name] or [all]");
  EXPECT_EQ(error_of("[03\n").rfind("--config class.toml:1:", 0), 0u);
  EXPECT_EQ(error_of("[a]\nx = \"open\n").rfind("--config class.toml:2:", 0), 0u);
  EXPECT_EQ(error_of("[a]\nx = 1\nx = 2\n").rfind("--config class.toml:3:", 0), 0u);
  EXPECT_EQ(error_of("[a]\n[a]\n").rfind("--config class.toml:2:", 0), 0u);
  EXPECT_EQ(error_of("[a]\nx =\n").rfind("--config class.toml:2:", 0), 0u);
  EXPECT_EQ(error_of("[a]\nx = [1, 2]\n"),
            "--config class.toml:2 [a] x: a flag takes one value (text, a number or true/false), not a table, an "
            "array or a date");
  for (const std::string& text : {std::string("[a]\nx = many\n"), std::string("[a]\n[a]\n")}) {
    EXPECT_EQ(error_of(text).find('\n'), std::string::npos) << "one line";
  }
}

// Hostile presets stay linear and their errors short: a 1 MB value or key, 100,000 sections.
TEST(Presets, LargeFilesAreQuickAndErrorsStayShort) {
  const auto start = std::chrono::steady_clock::now();
  const std::string key(100000, 'k');
  const std::string long_key_error = error_of("[a]\n" + key + " = 1\n");
  EXPECT_EQ(long_key_error, "");  // a long key is valid TOML; the flag check refuses it later
  const PresetFile f = parse_presets("[a]\n" + key + " = 1\n", "class.toml");
  EXPECT_LT(preset_origin(f, f.sections[0], f.sections[0].values[0]).size(), 200u);
  EXPECT_LT(error_of("[a]\nx = " + std::string(100000, '9') + "\n").size(), 300u);
  std::string many;
  for (int i = 0; i < 100000; ++i) many += "[s" + std::to_string(i) + "]\n";
  EXPECT_EQ(parse_presets(many, "class.toml").sections.size(), 100000u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

TEST(Presets, AMissingFileOrADirectoryIsOneClearLine) {
  EXPECT_THROW(read_presets("/nonexistent/class.toml"), UsageError);
  EXPECT_THROW(read_presets("/tmp"), UsageError);
}
