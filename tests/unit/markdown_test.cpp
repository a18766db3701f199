// The course notes' Markdown in the terminal: tables, lists, inline styles, Chinese text.
#include <gtest/gtest.h>

#include "common/report/markdown.hpp"
#include "common/core/text_format.hpp"

using namespace cudalab;

namespace {

MarkdownStyle plain(std::size_t width = 80) { return MarkdownStyle{width, false, true}; }

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Where the text of each column starts on a line (the column after each two-space gap).
std::size_t column_of(const std::string& line, const std::string& cell) {
  const std::size_t at = line.find(cell);
  return at == std::string::npos ? std::string::npos : display_width(line.substr(0, at));
}

}  // namespace

TEST(Markdown, TableBecomesAlignedColumnsWithARuleUnderTheHeader) {
  const char* text =
      "Before.\n\n"
      "| method | what the host does | overlap |\n"
      "|---|---|---|\n"
      "| synchronous | launch, wait… | nothing |\n"
      "| two-branch-dag | one `cudaGraphLaunch` | batches on **different** branches |\n";
  const auto lines = render_markdown(text, plain());
  ASSERT_EQ(lines.size(), 6u) << joined(lines);
  EXPECT_EQ(lines[0], "Before.");
  EXPECT_EQ(lines[2], "method          what the host does   overlap");
  EXPECT_EQ(lines[3].find("─"), 0u);
  EXPECT_EQ(lines[3].find('|'), std::string::npos);
  EXPECT_EQ(lines[4], "synchronous     launch, wait…        nothing");
  EXPECT_EQ(lines[5], "two-branch-dag  one cudaGraphLaunch  batches on different branches");
  for (const auto& line : lines) {
    EXPECT_EQ(line.find('|'), std::string::npos) << line;
    EXPECT_EQ(line.find('`'), std::string::npos) << line;
  }
}

TEST(Markdown, TableColumnsAlignByDisplayWidthInChinese) {
  const char* text =
      "| 方法 | 每个 step 主机做什么 |\n"
      "|---|---|\n"
      "| synchronous | 启动、等待 |\n"
      "| two-branch-dag | 启动一次图 |\n";
  const auto lines = render_markdown(text, plain());
  ASSERT_EQ(lines.size(), 4u) << joined(lines);
  EXPECT_EQ(column_of(lines[0], "每个"), column_of(lines[2], "启动"));
  EXPECT_EQ(column_of(lines[0], "每个"), column_of(lines[3], "启动一次图"));
  EXPECT_EQ(column_of(lines[0], "每个"), display_width("two-branch-dag  "));
}

TEST(Markdown, WideTableWrapsItsCellsToFitTheWidth) {
  const char* text =
      "| a | b |\n|---|--:|\n"
      "| short | a long cell that would never fit in thirty columns of terminal |\n";
  const auto lines = render_markdown(text, plain(30));
  EXPECT_GT(lines.size(), 3u);
  for (const auto& line : lines) EXPECT_LE(display_width(line), 30u) << line;
}

TEST(Markdown, InlineMarkersAreRemovedWithoutColourAndPaintedWithIt) {
  const char* text = "A *lower* number is **more** urgent: call `cudaStreamCreateWithPriority`.";
  EXPECT_EQ(joined(render_markdown(text, plain())),
            "A lower number is more urgent: call cudaStreamCreateWithPriority.\n");
  MarkdownStyle color = plain();
  color.color = true;
  const std::string painted = joined(render_markdown(text, color));
  EXPECT_NE(painted.find("\x1b[3mlower\x1b[0m"), std::string::npos) << painted;
  EXPECT_NE(painted.find("\x1b[1mmore\x1b[0m"), std::string::npos) << painted;
  EXPECT_NE(painted.find("\x1b[36mcudaStreamCreateWithPriority\x1b[0m"), std::string::npos) << painted;
  EXPECT_EQ(painted.find('`'), std::string::npos);
  EXPECT_EQ(painted.find('*'), std::string::npos);
}

TEST(Markdown, LiteralStarsAndUnclosedMarkersStayText) {
  EXPECT_EQ(render_markdown("a * b and 2*3", plain()).front(), "a * b and 2*3");
  EXPECT_EQ(render_markdown("`` a`b ``", plain()).front(), "a`b");
  EXPECT_EQ(render_markdown("**`code` in strong**", plain()).front(), "code in strong");
  EXPECT_EQ(render_markdown("数字*越小*越*紧急*：", plain()).front(), "数字越小越紧急：");
}

TEST(Markdown, CodeSpansAndEmphasisAreNeverSplitAcrossLines) {
  const std::string text =
      "Each copy costs `t(n) = latency + n / bandwidth` and the size `latency × bandwidth` is "
      "where **half the bandwidth** is reached, so *small copies waste the link*.";
  for (std::size_t width = 40; width <= 90; ++width) {
    const auto lines = render_markdown(text, plain(width));
    const std::string all = joined(lines);
    for (const char* span : {"t(n) = latency + n / bandwidth", "latency × bandwidth", "half the bandwidth",
                             "small copies waste the link"}) {
      EXPECT_NE(all.find(span), std::string::npos) << "width " << width << ": '" << span << "' split:\n" << all;
    }
    for (const auto& line : lines) EXPECT_LE(display_width(line), width) << line;
  }
}

TEST(Markdown, ListsRenderAsListsWithHangingIndents) {
  const char* text =
      "- **nodes** and **edges**;\n"
      "- **width** — the most nodes that may run at once, i.e. the largest set of nodes with no path\n"
      "  between any two.\n"
      "  - a nested point\n"
      "\n"
      "1. The width equals min(B, S). What does `--streams 64 --batches 8` give, and why?\n"
      "2. Why does an event not show up as a node?\n";
  const auto lines = render_markdown(text, plain(50));
  const std::string all = joined(lines);
  EXPECT_EQ(lines[0], "• nodes and edges;");
  EXPECT_EQ(lines[1].rfind("• width — the most nodes", 0), 0u) << all;
  EXPECT_EQ(lines[2].rfind("  ", 0), 0u) << "continuation hangs under the text:\n" << all;
  EXPECT_NE(all.find("\n  • a nested point\n"), std::string::npos) << all;
  EXPECT_NE(all.find("\n1. The width equals"), std::string::npos) << all;
  EXPECT_NE(all.find("\n   --streams 64 --batches 8"), std::string::npos) << "numbered items hang too:\n" << all;
  EXPECT_NE(all.find("\n2. Why does"), std::string::npos) << all;
}

TEST(Markdown, ChineseLinesJoinWithoutSpacesAndWrapByDisplayWidth) {
  const char* text =
      "GPU 不是一次只做一件事的单个处理器，而是一座拥有多个独立引擎的工厂：计算引擎（SM，负责运行\n"
      "**核函数**）和一个或多个复制引擎。每个引擎都有自己的工作队列，\n"
      "所以当 SM 在处理这一批数据时，一个复制引擎可以把下一批数据搬进来。\n";
  for (std::size_t width : {30u, 41u, 60u}) {
    const auto lines = render_markdown(text, plain(width));
    std::string all;
    for (const auto& line : lines) {
      EXPECT_LE(display_width(line), width) << line;
      EXPECT_NE(line.rfind("，", 0), 0u) << line;
      all += line;
    }
    EXPECT_NE(all.find("运行核函数）和"), std::string::npos) << all;
    EXPECT_NE(all.find("队列，所以"), std::string::npos) << all;
  }
}

TEST(Markdown, HeadingsAreBoldAndCodeStaysVerbatim) {
  const char* text = "## A heading\n\n    indented   code\n```\nfenced  | code\n```\n";
  const auto lines = render_markdown(text, plain());
  EXPECT_EQ(joined(lines), "A heading\n\n    indented   code\nfenced  | code\n");
  MarkdownStyle color = plain();
  color.color = true;
  EXPECT_EQ(render_markdown("## A heading", color).front(), "\x1b[1mA heading\x1b[0m");
}
