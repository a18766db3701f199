#include <gtest/gtest.h>

#include "common/core/text_format.hpp"

using namespace cudalab;

TEST(TextFormat, DisplayWidthCountsCjkTwiceAndSkipsAnsi) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("流水线"), 6u);
  EXPECT_EQ(display_width("\x1b[1mbold\x1b[0m"), 4u);
  EXPECT_EQ(display_width("─ ✓"), 3u);
}

TEST(TextFormat, WrapsAtSpacesAndBetweenCjkCharacters) {
  const auto lines = wrap_text("the quick brown fox jumps", 10);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "the quick");
  EXPECT_EQ(lines[1], "brown fox");
  EXPECT_EQ(lines[2], "jumps");
  for (const auto& line : wrap_text("一二三四五六七八九十", 6)) EXPECT_LE(display_width(line), 6u);
  EXPECT_EQ(wrap_text("", 10).size(), 1u);
}

TEST(TextFormat, Numbers) {
  EXPECT_EQ(format_number(2.6181), "2.618");
  EXPECT_EQ(format_number(53.514), "53.51");
  EXPECT_EQ(format_number(812.44), "812.4");
  EXPECT_EQ(format_number(16777216), "16777216");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_count(16777216), "16,777,216");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_bytes(4096), "4KiB");
  EXPECT_EQ(format_bytes(64ull << 20), "64MiB");
  EXPECT_EQ(format_bytes(1000003), "1000003B");
  EXPECT_EQ(pad_left("ab", 4), "  ab");
  EXPECT_EQ(pad_right("流", 3), "流 ");
}

TEST(TextFormat, ChineseProseJoinsWithoutSpacesAndKeepsPunctuationOffLineStarts) {
  std::string p = "第一行";
  append_prose(p, "第二行");
  EXPECT_EQ(p, "第一行第二行");
  append_prose(p, "GPU");
  EXPECT_EQ(p, "第一行第二行 GPU");
  for (std::size_t width : {6u, 7u, 8u, 9u, 10u}) {
    for (const auto& line : wrap_text("一二三四，五六七八。九十", width)) {
      EXPECT_LE(display_width(line), width);
      EXPECT_NE(line.rfind("，", 0), 0u) << line;
      EXPECT_NE(line.rfind("。", 0), 0u) << line;
    }
  }
}

TEST(TextFormat, KeepTogetherRunsAndTouchingPiecesStayOnOneLine) {
  const std::vector<TextRun> runs = {{"call ", "", false}, {"cudaMemcpyAsync(dst, src, n)", "36", true},
                                     {", then wait on the stream", "", false}};
  for (std::size_t width = 30; width <= 60; ++width) {
    const auto lines = wrap_runs(runs, width);
    bool found = false;
    for (const auto& line : lines) {
      EXPECT_LE(display_width(line), width) << line;
      found = found || line.find("\x1b[36mcudaMemcpyAsync(dst, src, n)\x1b[0m,") != std::string::npos;
    }
    EXPECT_TRUE(found) << "width " << width << ": the span was split, or its comma left it";
  }
  // Wider than a line: broken at its spaces after all, each piece still painted.
  const auto narrow = wrap_runs({{"a very long emphasised phrase", "3", true}}, 10);
  EXPECT_GT(narrow.size(), 1u);
  for (const auto& line : narrow) EXPECT_EQ(line.rfind("\x1b[3m", 0), 0u) << line;
}

TEST(TextFormat, JoinedLinesGainNoSpaceAtChinesePunctuationOrThroughMarkers) {
  std::string p = "主机函数";
  append_prose(p, "**不能**调用 CUDA");
  EXPECT_EQ(p, "主机函数**不能**调用 CUDA");
  p = "它在流里排队，";
  append_prose(p, "`cudaLaunchHostFunc` 入队");
  EXPECT_EQ(p, "它在流里排队，`cudaLaunchHostFunc` 入队");
  p = "用 `cudaMemcpyAsync`";
  append_prose(p, "（异步）");
  EXPECT_EQ(p, "用 `cudaMemcpyAsync`（异步）");
  p = "the copy";
  append_prose(p, "`engine`");
  EXPECT_EQ(p, "the copy `engine`");
}
