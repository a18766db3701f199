// Run files and labels from students are untrusted: nesting is bounded before anything recurses,
// a bad field is named in words, and every function that walks input text is linear (each is
// run at 1 MB and must finish in under half a second of CPU time).
#include <gtest/gtest.h>

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
constexpr double kLimitSeconds = 0.5;

// CPU time, not wall time: the build machine is shared, and what is measured is the work done.
template <class F>
double cpu_seconds(F&& work) {
  const std::clock_t start = std::clock();
  work();
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
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
  r.checks.front().summary = summary + "1 of 1";
  const std::string text = report_to_json(r).dump();
  const double seconds = cpu_seconds([&] {
    const auto runs = parse_saved_runs(text, "run.json");
    EXPECT_NE(runs.front().integrity.state, Integrity::modified) << runs.front().integrity.describe();
    TextStyle style;
    EXPECT_FALSE(render_text(runs.front().report, style).empty());
  });
  EXPECT_LT(seconds, kLimitSeconds);
}
