// The command line end to end, in-process: exit codes and one-line errors. None of these needs
// a GPU; the no-device tests hide any GPU with CUDA_VISIBLE_DEVICES="" before CUDA starts
// (each test runs in its own process under CTest).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "cli/app.hpp"
#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "test_support.hpp"
#include "common/report/report_json.hpp"

using namespace cudalab;

namespace {

using testing_support::one_line;
using testing_support::slug_of;
using testing_support::verify_check;
using Outcome = testing_support::CliOutcome;
Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

using testing_support::hide_gpus;

}  // namespace

TEST(Cli, ListShowsTheWholeCourseInOrder) {
  const Outcome o = run({"list"});
  EXPECT_EQ(o.code, 0);
  std::size_t pos = 0;
  for (const auto& e : course()) {
    const std::size_t at = o.out.find(e.slug, pos);
    EXPECT_NE(at, std::string::npos) << e.slug;
    pos = at;
  }
  EXPECT_EQ(run({}).out.substr(0, 200), o.out.substr(0, 200)) << "no arguments shows the list too";
}

// What the lab's scripts read instead of a list of their own (tools/gpu-batch.sh, gpu-pairs.sh).
TEST(Cli, ListAsJsonIsTheCourse) {
  const Outcome o = run({"list", "--format", "json", "--lang", "en"});
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json listed = nlohmann::json::parse(o.out);
  EXPECT_EQ(listed.at("schema"), "cudalab-course/1");
  const nlohmann::json& lessons = listed.at("lessons");
  ASSERT_EQ(lessons.size(), course().size());
  for (std::size_t i = 0; i < lessons.size(); ++i) {
    const CourseEntry& lesson = course()[i];
    SCOPED_TRACE(lesson.id());
    EXPECT_EQ(lessons[i].at("id"), lesson.id());
    EXPECT_EQ(lessons[i].at("number"), lesson.number);
    EXPECT_EQ(lessons[i].at("slug"), lesson.slug);
    EXPECT_EQ(lessons[i].at("summary"), lesson.summary.en);
    EXPECT_EQ(lessons[i].at("gpus_needed"), lesson.gpus_needed);
    EXPECT_DOUBLE_EQ(lessons[i].at("reference_turn_s").get<double>(), course_turn_times().by_lesson.at(lesson.id()));
  }
  const Outcome zh = run({"list", "--format", "json", "--lang", "zh"});
  EXPECT_EQ(nlohmann::json::parse(zh.out).at("lessons").at(0).at("title"), course().front().title.zh);
  const Outcome bad = run({"list", "--format", "yaml"});
  EXPECT_EQ(bad.code, to_int(ExitCode::usage));
  EXPECT_TRUE(testing_support::one_line(bad.err)) << bad.err;
  EXPECT_NE(bad.err.find("--format"), std::string::npos) << bad.err;
}

TEST(Cli, VersionAndHelp) {
  EXPECT_EQ(run({"--version"}).code, 0);
  const Outcome help = run({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  const Outcome lesson_help = run({"01", "--help"});
  EXPECT_EQ(lesson_help.code, 0);
  EXPECT_NE(lesson_help.out.find("--repeat"), std::string::npos);
  EXPECT_NE(lesson_help.out.find("77"), std::string::npos);
}

TEST(Cli, LessonsAreReachableByNameAndNumber) {
  hide_gpus();
  for (const auto& e : course()) {
    for (const std::string& name : {std::string(e.slug), std::to_string(e.number), (e.number < 10 ? "0" : "") + std::to_string(e.number)}) {
      EXPECT_EQ(run({name, "--help"}).code, 0) << name;
    }
  }
}

struct UsageCase {
  std::vector<std::string> args;
  std::string must_name;
};

TEST(Cli, BadInputGetsOneLineAndTheUsageCode) {
  std::vector<UsageCase> cases = {
      {{slug_of(1), "--device", "-1"}, "--device"},
      {{"01", "--repeat", "0"}, "--repeat"},
      {{"01", "--repeat", "abc"}, "--repeat"},
      {{"01", "--lang", "xx"}, "--lang"},
      {{"01", "--format", "yaml"}, "--format"},
      {{"01", "--json", "/nonexistent-dir/run.json"}, "--json"},
      {{"frobnicate"}, "unknown lesson"},
      {{"01", "--no-such-flag"}, "--no-such-flag"},
      {{"show"}, "RUN"},
      {{"show", "/nonexistent.json"}, "neither a file nor a lesson"},
  };
  // One past the course's last lesson, so adding a lesson does not break this test.
  const int past_the_end = course().back().number + 1;
  cases.push_back({{(past_the_end < 10 ? "0" : "") + std::to_string(past_the_end)}, "unknown lesson"});
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    EXPECT_EQ(o.code, to_int(ExitCode::usage)) << c.args[0];
    EXPECT_TRUE(one_line(o.err)) << o.err;
    EXPECT_NE(o.err.find(c.must_name), std::string::npos) << o.err;
  }
}

TEST(Cli, ConfigFileWithUnknownKeysOrBadTypesIsAUsageError) {
  const std::string path = testing::TempDir() + "cudalab_bad.toml";
  {
    std::ofstream(path) << "[" + slug_of(1) + "]\nno_such_key = 3\n";
  }
  Outcome o = run({"--config", path, "01"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << o.err;
  EXPECT_TRUE(one_line(o.err)) << o.err;
  {
    std::ofstream(path) << "[" + slug_of(1) + "]\nrepeat = \"many\"\n";
  }
  o = run({"--config", path, "01"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << o.err;
  EXPECT_NE(o.err.find("repeat"), std::string::npos) << o.err;
  EXPECT_EQ(run({"--config", "/nonexistent.toml", "01"}).code, to_int(ExitCode::usage));
}

TEST(Cli, EveryLessonIsWaivedWithoutADevice) {
  hide_gpus();
  std::vector<std::vector<std::string>> commands = {{"all"}};
  for (const auto& e : course()) {
    commands.push_back({e.slug});
  }
  for (const auto& args : commands) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, to_int(ExitCode::waived)) << args[0] << ": " << o.err;
    EXPECT_TRUE(one_line(o.err)) << o.err;
    EXPECT_NE(o.err.find("`cudalab show "), std::string::npos) << "points to the reference runs: " << o.err;
  }
}

TEST(Cli, ShowRendersASavedRunWithoutAGpu) {
  hide_gpus();
  Report r;
  r.lesson_number = 1;
  r.lesson_slug = slug_of(1);
  r.lesson_title = "t";
  r.tool_version = "0.1.0";
  r.recorded_at = "2026-01-01T00:00:00Z";
  r.checks = {verify_check("ok", true, "fine")};
  const std::string path = testing::TempDir() + "cudalab_run.json";
  std::ofstream(path) << report_to_json(r).dump();
  Outcome o = run({"show", path, "--stable"});
  EXPECT_EQ(o.code, 0) << o.err;
  // A run written before runs were sealed says so first; the rest is the lesson's stable form.
  EXPECT_EQ(o.out, "integrity unsealed: recorded before runs carried a digest\nseal not sealed by the class: it carries no class seal\n"
            "lesson 01 " + slug_of(1) +
                       "\nenvironment clean\nverify ok pass\n");
  o = run({"show", path, "--color", "never"});
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("recorded run · 2026-01-01T00:00:00Z"), std::string::npos);
  std::ofstream(path) << "{ not json";
  o = run({"show", path});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
}

// The queue takes a turn on every GPU a lesson measures on: one for every lesson but the
// multi-GPU one, which says --gpus N, or every visible GPU when --gpus is unset.
TEST(Cli, EachLessonSaysHowManyGpusItMeasuresOn) {
  for (const auto& entry : cudalab::course()) {
    auto lesson = entry.make();
    if (entry.gpus_needed == 1) {  // the lesson's own description says how many it needs
      EXPECT_EQ(lesson->gpus_measured(), std::optional<int>(1)) << entry.slug;
      continue;
    }
    EXPECT_EQ(lesson->gpus_measured(), std::nullopt);
    ASSERT_TRUE(lesson->set_flag("gpus", "3").empty());
    EXPECT_EQ(lesson->gpus_measured(), std::optional<int>(3));
  }
}
