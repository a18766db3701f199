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

// A bracket never ends a line and a closing one never starts one, ASCII or full-width, in the zh
// help's "[默认：4]" as in prose.
TEST(TextFormat, ABracketStaysWithWhatItEncloses) {
  const std::string text = "每个流上的数据块个数，至少等于流数 [默认：8]（0 表示自动）";
  for (std::size_t width = 6; width <= 40; ++width) {
    const auto lines = wrap_text(text, width);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      EXPECT_LE(display_width(line), width) << line;
      for (const std::string open : {"[", "（"}) {
        EXPECT_FALSE(line.size() >= open.size() && line.compare(line.size() - open.size(), open.size(), open) == 0)
            << "width " << width << ": a lone '" << open << "' ends '" << line << "'";
      }
      for (const std::string close : {"]", "）"}) EXPECT_NE(line.rfind(close, 0), 0u) << "width " << width << ": " << line;
    }
  }
}

namespace {

bool han(const std::string& s, bool at_end) {
  if (s.empty()) return false;
  std::size_t start = s.size();
  if (at_end) {
    while (start > 0 && (static_cast<unsigned char>(s[start - 1]) & 0xC0) == 0x80) --start;
    if (start > 0) --start;
  } else {
    start = 0;
  }
  std::size_t len = 1;
  while (start + len < s.size() && (static_cast<unsigned char>(s[start + len]) & 0xC0) == 0x80) ++len;
  const std::string ch = s.substr(start, len);
  static const std::string punctuation = "，。、；：！？（）「」『』【】《》“”‘’";
  return display_width(ch) == 2 && punctuation.find(ch) == std::string::npos;
}

// A line that could have ended at a word boundary (a space, punctuation, Chinese beside other
// text) but ends between two Chinese characters instead, splitting what may be a word.
bool splits_a_word(const std::vector<std::string>& lines) {
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!han(lines[i], true) || !han(lines[i + 1], false)) continue;
    const std::string& l = lines[i];
    for (std::size_t k = 1; k < l.size(); ++k) {
      if ((static_cast<unsigned char>(l[k]) & 0xC0) == 0x80) continue;
      if (!han(l.substr(0, k), true) || !han(l.substr(k), false)) return true;  // a boundary it passed over
    }
  }
  return false;
}

}  // namespace

// `list` once split 硬件 across two lines. A line ends at a word boundary when the line has one;
// only a run of Chinese longer than the whole line breaks between two characters.
TEST(TextFormat, ChineseWrapsAtWordBoundariesNotInsideAWord) {
  const std::string summary = "SM、复制引擎、优先级、PCIe 链路：其他各课要用到的硬件";
  for (std::size_t width = 12; width <= 60; ++width) {
    const auto lines = wrap_text(summary, width);
    for (const auto& l : lines) EXPECT_LE(display_width(l), width) << l;
    EXPECT_FALSE(splits_a_word(lines)) << "width " << width << ": " << lines.front() << " | " << lines.at(1);
    std::string all;
    for (const auto& l : lines) all += l;
    EXPECT_NE(all.find("硬件"), std::string::npos) << "width " << width;
  }
  const auto lines = wrap_text(summary, 52);  // the width `list` gives it in an 80-column terminal
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "SM、复制引擎、优先级、PCIe 链路：");
  EXPECT_EQ(lines[1], "其他各课要用到的硬件");
  // A clause wider than the line has no boundary to break at: it breaks between characters.
  const auto long_clause = wrap_text("一二三四五六七八九十一二三四五六七八九十", 10);
  EXPECT_EQ(long_clause.size(), 4u);
  for (const auto& l : long_clause) EXPECT_LE(display_width(l), 10u);
  // English is untouched: words break at spaces.
  EXPECT_EQ(wrap_text("the quick brown fox jumps", 10).size(), 3u);
}
