// Class presets read as TOML by toml++: what valid TOML it must accept, and the
// FILE:LINE [section] errors for what it must refuse.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

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
  const std::string key(4000, 'k');
  EXPECT_EQ(error_of("[a]\n" + key + " = 1\n"), "");  // a long key is valid TOML; the flag check refuses it later
  const PresetFile f = parse_presets("[a]\n" + key + " = 1\n", "class.toml");
  EXPECT_LT(preset_origin(f, f.sections[0], f.sections[0].values[0]).size(), 200u);
  const std::string longer_key_error = error_of("[a]\n" + std::string(100000, 'k') + " = 1\n");
  EXPECT_EQ(longer_key_error, "--config class.toml:2 [a]: a line of 100004 characters; a preset's lines are at most 4096");
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

// issue 50 item 2: what toml++ is never handed. A debug build of toml++ asserted inside
// parse_key() on 100,000 nested brackets (exit 134); the release build only stayed clean because
// NDEBUG removed the check. Lines and nesting are bounded over the text first, with FILE:LINE.
TEST(Presets, DeepNestingAndLongLinesAreRefusedBeforeTomlReadsThem) {
  EXPECT_EQ(error_of(std::string(100000, '[')),
            "--config class.toml:1: a line of 100000 characters; a preset's lines are at most 4096");
  std::string one_a_line = "[a]\nx = ";
  for (int i = 0; i < 100000; ++i) one_a_line += "[\n";
  const std::string deep = "--config class.toml:10 [a]: lists and tables nested more than 8 deep";
  EXPECT_EQ(error_of(one_a_line).rfind(deep, 0), 0u) << error_of(one_a_line);
  EXPECT_EQ(error_of("[a]\nx = " + std::string(9, '[') + std::string(9, ']') + "\n").rfind(
                "--config class.toml:2 [a]: lists and tables nested more than 8 deep", 0),
            0u);
  std::string inline_tables = "[a]\n";
  for (int i = 0; i < 9; ++i) inline_tables += "x = { ";
  EXPECT_NE(error_of(inline_tables).find("nested more than 8 deep"), std::string::npos) << error_of(inline_tables);
  // Brackets in quotes or after # are text, not nesting; a whole-line comment may be long.
  const std::string brackets(40, '[');
  EXPECT_EQ(error_of("[a]\nx = \"" + brackets + "\"\ny = '" + brackets + "'\nz = \"\"\"\n" + brackets +
                     "\\\"\"\"\"\nw = '''" + brackets + "'''\n# " + brackets + "\n#" + std::string(100000, 'c') + "\n"),
            "");
  // 8 deep reaches toml++ (and is then no value a flag takes).
  EXPECT_EQ(error_of("[a]\nx = [[[[[[[[1]]]]]]]]\n").find("nested"), std::string::npos) << "8 deep is allowed";
}

TEST(Presets, DeepNestingIsRefusedInChineseToo) {
  const std::string path = testing::TempDir() + "cudalab_deep_preset.toml";
  std::ofstream(path) << "[" + slug_of(3) + "]\nstreams = " + std::string(20, '[') + "\n";
  const auto o = testing_support::run_cudalab({"03", "--config", path, "--lang", "zh"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(testing_support::one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find(path + ":2 [" + slug_of(3) + "]：列表和表嵌套超过 8 层"), std::string::npos) << o.err;
}

// issue 50 item 6: a [grade] list given as one value is a wrong type, not a list of one.
TEST(Presets, AGradeListGivenAsOneValueIsRefused) {
  for (const std::string key : {"lessons", "gpus"}) {
    EXPECT_EQ(error_of("[grade]\n" + key + " = \"03\"\n"),
              "--config class.toml:2 [grade] " + key + ": takes a list of texts in quotes: " + key + " = [\"...\", \"...\"]");
  }
  EXPECT_EQ(error_of("[grade]\nlessons = [\"03\", 5]\n"), "");
}
