// Run files and labels from students are untrusted: nesting is bounded before anything recurses,
// a bad field is named in words, and every function that walks input text is linear (each is
// run at 1 MB and must finish in under half a second of CPU time).
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/builder.hpp"
#include "common/report/json_field.hpp"
#include "common/report/markdown.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"
#include "test_support.hpp"

using namespace cudalab;

namespace {

constexpr std::size_t kMegabyte = 1 << 20;
// Linear work on a megabyte takes a fraction of a second; a quadratic pass over it, about 10^12
// steps, takes minutes. 2 s tells the two apart with room to spare: at 0.5 s, cmark-gfm's
// rendering of a megabyte table (0.50-0.53 s on the 2-core build machine, best of three) failed
// half the runs.
constexpr double kLimitSeconds = 2.0;

// CPU time, not wall time: the build machine is shared, and what is measured is the work done.
// The best of three runs: a busy machine (page faults served slowly, caches shared) only ever
// adds time, and a quadratic pass would be slow in all three.
template <class F>
double cpu_seconds(F&& work) {
  double best = 1e9;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::clock_t start = std::clock();
    work();
    best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
  }
  return best;
}

Report small_run() {
  ReportBuilder b({{"size", "64MiB", true}});
  b.section("timing", "timing")
      .metric(measured("seq", "sequential", "ms", {2.61, 2.65, 2.618}))
      .metric(measured("par", "overlapped", "ms", {1.2, 1.3, 1.25}));
  Tally all;
  all.add(1024, 1024);
  b.verify("results", all, "every batch");
  Report r = std::move(b).build();
  r.tool_version = "0.1.0";
  r.recorded_at = "2026-11-21T19:00:00Z";
  r.lesson_number = 3;
  r.lesson_slug = testing_support::slug_of(3);
  r.lesson_title = "stream overlap";
  return r;
}

// What reading `text` as a run refuses with, or "" when it reads.
std::string refusal(const std::string& text) {
  try {
    parse_saved_runs(text, "run.json");
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

TEST(UntrustedRun, NestingDeeperThanTheLimitIsRefusedInOneLine) {
  std::string run = report_to_json(small_run()).dump();
  run.insert(1, "\"extra\":" + nested(70000) + ",");
  const std::string why = refusal(run);
  EXPECT_NE(why.find("nests deeper than 64 levels"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
  // Just inside the limit: the extra field sits one level down, so 63 more levels still read.
  std::string inside = report_to_json(small_run()).dump();
  inside.insert(1, "\"extra\":" + nested(kMaxJsonDepth - 1) + ",");
  EXPECT_EQ(refusal(inside), "");
  EXPECT_NE(refusal(nested(65)).find("nests deeper"), std::string::npos);
}

TEST(UntrustedRun, ABadFieldIsNamedByItsPathInWords) {
  const nlohmann::json good = report_to_json(small_run());
  nlohmann::json bad = good;
  bad["sections"][0]["metrics"][1]["samples"][2] = "fast";
  EXPECT_NE(refusal(bad.dump()).find("sections[0].metrics[1].samples[2]: expected a number, found a string"),
            std::string::npos)
      << refusal(bad.dump());
  bad = good;
  bad["checks"][0].erase("passed");
  EXPECT_NE(refusal(bad.dump()).find("checks[0]: missing its field \"passed\""), std::string::npos);
  bad = good;
  bad["checks"][0]["checked"] = -3;
  EXPECT_NE(refusal(bad.dump()).find("checks[0].checked: expected a whole number from 0 up"), std::string::npos);
  bad = good;
  bad["lesson"]["number"] = nlohmann::json::array();
  const std::string in_array = refusal(nlohmann::json::array({good, bad}).dump());
  EXPECT_NE(in_array.find("[1].lesson.number: expected a whole number, found an array"), std::string::npos)
      << in_array;
  for (const std::string& text : {bad.dump(), std::string("{\"schema\": tru"), good.dump().substr(0, 40)}) {
    const std::string why = refusal(text);
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(why.find("json.exception"), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
}

TEST(UntrustedRun, A60KilobyteCheckSummaryReadsAndRendersQuickly) {
  Report r = small_run();
  std::string summary;
  while (summary.size() < 60000) summary += "1,";
  r.checks.front().summary = Message(summary + "1 of 1");  // a template as long as 60 KB
  const std::string text = report_to_json(r).dump();
  const double seconds = cpu_seconds([&] {
    const auto runs = parse_saved_runs(text, "run.json");
    EXPECT_NE(runs.front().integrity.state, Integrity::modified) << runs.front().integrity.describe();
    TextStyle style;
    EXPECT_FALSE(render_text(runs.front().report, style).empty());
  });
  EXPECT_LT(seconds, kLimitSeconds);
}

// `cudalab show` of a run whose metric label is 1 MB, in English and Chinese.
TEST(Linear, ShowOfAMegabyteLabel) {
  Report r = small_run();
  std::string label;
  while (label.size() < kMegabyte) label += "overlapped ms ";
  r.sections.front().metrics.front().label = Message(label);  // a template of a megabyte
  const std::string text = report_to_json(r).dump();
  for (Lang lang : {Lang::en, Lang::zh}) {
    const double seconds = cpu_seconds([&] {
      TextStyle style;
      style.lang = lang;
      EXPECT_GT(render_text(parse_saved_runs(text, "run.json").front().report, style).size(), kMegabyte);
    });
    EXPECT_LT(seconds, kLimitSeconds) << lang_name(lang);
  }
}

TEST(Linear, TextFormatFunctionsAtOneMegabyte) {
  std::string word(kMegabyte, 'x'), words, chinese, control;
  while (words.size() < kMegabyte) words += "copy engine ";
  while (chinese.size() < kMegabyte) chinese += "复制引擎，";
  while (control.size() < kMegabyte) control += "a\x1b[31m\n\xc2\x85";
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"wrap_text of one long word", [&] { EXPECT_GT(wrap_text(word, 80).size(), 10000u); }},
      {"wrap_text of words", [&] { EXPECT_GT(wrap_text(words, 80).size(), 10000u); }},
      {"wrap_text of Chinese", [&] { EXPECT_GT(wrap_text(chinese, 80).size(), 5000u); }},
      {"wrap_runs", [&] { EXPECT_GT(wrap_runs({{words, "1", false}, {word, "", true}}, 80).size(), 10000u); }},
      {"display_width", [&] { EXPECT_GT(display_width(chinese), kMegabyte / 2); }},
      {"truncate_to_width", [&] { EXPECT_LE(display_width(truncate_to_width(chinese, 20)), 20u); }},
      {"printable", [&] { EXPECT_GT(printable(control).size(), kMegabyte); }},
      {"printable_value", [&] { EXPECT_LT(printable_value(control).size(), 400u); }},
      {"append_prose", [&] {
         std::string paragraph;
         for (std::size_t i = 0; i < kMegabyte / 16; ++i) append_prose(paragraph, i % 2 ? "复制引擎" : "engines");
         EXPECT_GT(paragraph.size(), kMegabyte / 2);
       }},
  };
  for (const auto& [name, work] : cases) EXPECT_LT(cpu_seconds(work), kLimitSeconds) << name;
}

TEST(Linear, MarkdownAndTranslationAtOneMegabyte) {
  std::string paragraph, table = "| a | b |\n|---|--:|\n";
  while (paragraph.size() < kMegabyte) paragraph += "a **strong** word and `code` 复制引擎\n";
  while (table.size() < kMegabyte) table += "| cell | `42` |\n";
  const std::vector<std::pair<const char*, std::function<void()>>> cases = {
      {"render_markdown of a paragraph", [&] { EXPECT_GT(render_markdown(paragraph, {80, true, true}).size(), 5000u); }},
      {"render_markdown of a table", [&] { EXPECT_GT(render_markdown(table, {80, false, true}).size(), 10000u); }},
      {"inline_markdown", [&] { EXPECT_GT(inline_markdown(paragraph, false).size(), 1000u); }},
      // A run file's words are templates: a megabyte one (no entry) or a megabyte argument costs
      // one lookup and one pass.
      {"tr of a megabyte template", [&] { EXPECT_EQ(tr(Lang::zh, Message(paragraph), "03-stream-overlap"), paragraph); }},
      {"tr of a megabyte argument",
       [&] {
         EXPECT_EQ(tr(Lang::zh, msg("{a} {b}", arg("a", paragraph), arg("b", paragraph)), "03-stream-overlap").size(),
                   2 * paragraph.size() + 1);
       }},
  };
  for (const auto& [name, work] : cases) EXPECT_LT(cpu_seconds(work), kLimitSeconds) << name;
}
