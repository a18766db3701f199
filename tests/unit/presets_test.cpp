// Class presets read as TOML by our own small reader: what valid TOML it must accept, and the
// FILE:LINE [section] errors for what it must refuse.
#include <gtest/gtest.h>

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
  EXPECT_EQ(error_of("[" + slug_of(3) + "]\nstreams = many\n"),
            "--config class.toml:2: [" + slug_of(3) + "] streams: 'many' is not a TOML value (quote text: \"many\")");
  EXPECT_EQ(error_of("streams = 8\n"), "--config class.toml:1: streams is outside any section; put it under [lesson-name] or [all]");
  EXPECT_EQ(error_of("[03\n"), "--config class.toml:1: '[03' is neither [section] nor key = value");
  EXPECT_EQ(error_of("[a]\nx = \"open\n"), "--config class.toml:2: [a] x: a string is not closed");
  EXPECT_EQ(error_of("[a]\nx = 1\nx = 2\n"), "--config class.toml:3: [a] x is set twice");
  EXPECT_EQ(error_of("[a]\n[a]\n"), "--config class.toml:2: section [a] appears twice");
  EXPECT_EQ(error_of("[a]\nx =\n"), "--config class.toml:2: [a] x: no value after '='");
}

TEST(Presets, AMissingFileOrADirectoryIsOneClearLine) {
  EXPECT_THROW(read_presets("/nonexistent/class.toml"), UsageError);
  EXPECT_THROW(read_presets("/tmp"), UsageError);
}
