// compare, grade, show of a built-in reference run, and the portable grading form: all without
// a GPU, over the reference runs recorded on the lab GPU and doctored copies of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/core/errors.hpp"
#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/report/compare.hpp"
#include "common/report/integrity.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;
namespace fs = std::filesystem;

namespace {

using testing_support::one_line;
using testing_support::reference_run_name;
using testing_support::slug_of;
using Outcome = testing_support::CliOutcome;
Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

nlohmann::json reference_json(int lesson) { return nlohmann::json::parse(*reference_run(reference_run_name(lesson))); }

std::string reference_path(int lesson) {
  return (fs::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs" / (reference_run_name(lesson) + ".json")).string();
}

std::string write_run(const std::string& name, const nlohmann::json& run_json) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << run_json.dump(2);
  return path;
}

// Multiplies every sample of metric `key` by `factor`.
void scale_metric(nlohmann::json& run_json, const std::string& key, double factor) {
  for (auto& section : run_json["sections"]) {
    for (auto& metric : section["metrics"]) {
      if (metric["key"] != key) continue;
      for (auto& sample : metric["samples"]) sample = sample.get<double>() * factor;
      return;
    }
  }
  FAIL() << "no metric " << key;
}

// A headline metric of the reference run, as compare picks it.
std::string first_headline_key(const nlohmann::json& run_json) {
  const auto keys = report_from_json(run_json).headline_metric_keys();
  if (keys.empty()) throw std::logic_error("the reference run has no headline metric");
  return keys.front();
}

// The reference run as a run the current build made: sealed with a digest.
nlohmann::json sealed(const nlohmann::json& run_json) {
  Report r = report_from_json(run_json);
  r.tool_version = "0.1.0+test";
  seal(r);
  return report_to_json(r);
}

std::size_t count_lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST(Compare, TwoCopiesOfAReferenceRunHold) {
  for (const auto& entry : course()) {
    if (!reference_run(reference_run_name(entry.number))) continue;
    const Outcome o = run({"compare", std::to_string(entry.number), reference_path(entry.number)});
    EXPECT_EQ(o.code, 0) << entry.slug << ": " << o.out << o.err;
    EXPECT_NE(o.out.find("B holds against A"), std::string::npos) << o.out;
  }
}

TEST(Compare, ADoctoredHeadlineFigureFails) {
  nlohmann::json doctored = reference_json(3);
  const std::string key = first_headline_key(doctored);
  scale_metric(doctored, key, 2.0);
  const Outcome o = run({"compare", "03", write_run("doctored03.json", doctored)});
  EXPECT_EQ(o.code, to_int(ExitCode::verify_failed)) << o.out;
  EXPECT_NE(o.out.find("does not hold"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("headline metric " + key), std::string::npos) << o.out;
}

TEST(Compare, AFailedVerifyFails) {
  nlohmann::json doctored = reference_json(3);
  for (auto& check : doctored["checks"]) {
    if (check["kind"] == "verify") check["passed"] = false;
  }
  const Outcome o = run({"compare", "03", write_run("failed03.json", doctored)});
  EXPECT_EQ(o.code, to_int(ExitCode::verify_failed));
  EXPECT_NE(o.out.find("verify"), std::string::npos);
}

TEST(Compare, ASealedRunEditedAfterwardsIsModified) {
  nlohmann::json edited = sealed(reference_json(3));
  scale_metric(edited, first_headline_key(edited), 1.01);  // within tolerance, but not the run that was made
  const Outcome o = run({"compare", "03", write_run("edited03.json", edited)});
  EXPECT_EQ(o.code, to_int(ExitCode::verify_failed));
  EXPECT_NE(o.out.find("modified"), std::string::npos) << o.out;
}

TEST(Compare, ToleranceFlagOverridesTheLessons) {
  nlohmann::json slower = reference_json(3);
  scale_metric(slower, first_headline_key(slower), 1.10);
  slower = sealed(slower);  // as if another run had measured it: intact, only slower
  const std::string path = write_run("slower03.json", slower);
  EXPECT_EQ(run({"compare", "03", path, "--tolerance", "5%"}).code, to_int(ExitCode::verify_failed));
  EXPECT_EQ(run({"compare", "03", path, "--tolerance", "50%"}).code, 0);
}

TEST(Compare, MarkdownAndCsvForms) {
  const Outcome md = run({"compare", "03", reference_path(3), "--format", "md"});
  EXPECT_EQ(md.out.rfind("### Lesson 03", 0), 0u) << md.out;
  const Outcome csv = run({"compare", "03", reference_path(3), "--format", "csv"});
  ASSERT_EQ(csv.code, 0);
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "baseline,run,kind,key,unit,headline,baseline_value,run_value,ratio,tolerance,verdict");
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 10) << line;
  }
  EXPECT_GT(rows, 10u);
}

TEST(Compare, ADerivedFigureIsHeldNoTighterThanTheNoiseOfWhatItIsComputedFrom) {
  auto run_with = [](std::vector<double> sequential) {
    ReportBuilder b({});
    const double median = summarize(sequential).median;
    b.section("s", "section", "")
        .metric(measured("seq", "sequential", "ms", std::move(sequential)))
        .metric(measured("ovl", "overlapped", "ms", {1.70, 1.70, 1.71, 1.69, 1.70}))
        .metric(derived("speedup", "speed-up", "x", median / 1.70).from({"seq", "ovl"}));
    SavedRun saved;
    saved.report = std::move(b).build();
    return saved;
  };
  const SavedRun steady = run_with({3.80, 3.81, 3.79, 3.80, 3.80});
  const SavedRun noisy = run_with({3.8, 5.1, 5.0, 6.2, 4.4, 5.3});  // a busy GPU slowed most runs
  const Comparison c = compare_runs(steady, noisy, std::nullopt);
  const auto speedup = std::find_if(c.metrics.begin(), c.metrics.end(), [](const auto& m) { return m.key == "speedup"; });
  ASSERT_NE(speedup, c.metrics.end());
  const double seq_spread = summarize({3.8, 5.1, 5.0, 6.2, 4.4, 5.3}).inlier_spread;
  const double ovl_spread = summarize({1.70, 1.70, 1.71, 1.69, 1.70}).inlier_spread;
  EXPECT_NEAR(speedup->tolerance, seq_spread + ovl_spread, 1e-12);
  EXPECT_TRUE(speedup->within()) << "the ratio moved with its noisy input";
  const Comparison strict = compare_runs(steady, noisy, 0.15);
  const auto held = std::find_if(strict.metrics.begin(), strict.metrics.end(), [](const auto& m) { return m.key == "speedup"; });
  EXPECT_FALSE(held->within()) << "--tolerance replaces the widening";
}

TEST(Grade, AClassFolderWithADoctoredAndATruncatedRun) {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_class";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::size_t references = 0;
  for (const auto& entry : course()) {
    if (!reference_run(reference_run_name(entry.number))) continue;
    fs::copy_file(reference_path(entry.number), dir / ("student" + std::to_string(entry.number) + ".json"));
    ++references;
  }
  nlohmann::json doctored = sealed(reference_json(3));
  scale_metric(doctored, first_headline_key(doctored), 0.5);
  std::ofstream(dir / "zz-doctored.json") << doctored.dump();
  const std::string whole = reference_json(4).dump();
  std::ofstream(dir / "zz-truncated.json") << whole.substr(0, whole.size() / 2);

  const Outcome text = run({"grade", dir.string()});
  EXPECT_EQ(text.code, to_int(ExitCode::verify_failed)) << "a folder with a modified run does not all pass";
  EXPECT_NE(text.out.find(fmt::format("{} of {} runs pass", references, references + 2)), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("zz-truncated.json   unreadable: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("modified: its digest does not match"), std::string::npos) << text.out;

  const Outcome csv = run({"grade", dir.string(), "--format", "csv"});
  EXPECT_EQ(count_lines(csv.out), references + 3) << csv.out;  // header, the references, two bad files
  EXPECT_NE(csv.out.find("zz-doctored.json,03 " + slug_of(3)), std::string::npos) << csv.out;
  const Outcome md = run({"grade", dir.string(), "--format", "md"});
  EXPECT_EQ(md.out.rfind("| file | lesson |", 0), 0u) << md.out;
}

TEST(Show, ALessonNumberOrNameShowsItsBuiltInReferenceRun) {
  const Outcome by_file = run({"show", reference_path(3), "--stable"});
  ASSERT_EQ(by_file.code, 0) << by_file.err;
  EXPECT_EQ(run({"show", "03", "--stable"}).out, by_file.out);
  EXPECT_EQ(run({"show", "3", "--stable"}).out, by_file.out);
  EXPECT_EQ(run({"show", course().at(2).slug, "--stable"}).out, by_file.out);
  const Outcome text = run({"show", "03", "--color", "never"});
  EXPECT_NE(text.out.find("to try on a GPU"), std::string::npos);
  EXPECT_EQ(text.out.find("try next"), std::string::npos);
}

TEST(Show, ExitsOneWhenTheRunFailedVerify) {
  nlohmann::json failed = reference_json(4);
  for (auto& check : failed["checks"]) {
    if (check["kind"] == "verify") check["passed"] = false;
  }
  EXPECT_EQ(run({"show", write_run("failed04.json", failed), "--stable"}).code, to_int(ExitCode::verify_failed));
}

TEST(Portable, OnlyTheLessonItsParamsAndTheVerifyResults) {
  for (const auto& entry : course()) {
    if (!reference_run(reference_run_name(entry.number))) continue;
    const Outcome o = run({"show", std::to_string(entry.number), "--portable"});
    ASSERT_EQ(o.code, 0) << o.err;
    std::istringstream lines(o.out);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, fmt::format("lesson {:02d} {}", entry.number, entry.slug));
    while (std::getline(lines, line)) {
      EXPECT_TRUE(line.rfind("param ", 0) == 0 || line.rfind("verify ", 0) == 0) << entry.slug << ": " << line;
    }
  }
}

TEST(Waived, WithoutAGpuTheMessageSaysWhyAndPointsToTheReferenceRun) {
  testing_support::hide_gpus();
  const Outcome o = run({"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::waived));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find("cudalab show 03"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("insufficient"), std::string::npos) << "the runtime's words blame the driver version: " << o.err;
}
