// A course's runs without a GPU: the provenance every run carries (inside its digest), the
// copies `show` and `grade` catch, the class's checks on each row, the gradebook and its
// exports, the [grade] section of a class preset, and the drop folder as one user sees it. The
// same between real distinct users is tests/class_grade_test.sh.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <acl/libacl.h>
#include <fcntl.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/drop_folder.hpp"
#include "cli/presets.hpp"
#include "common/core/errors.hpp"
#include "common/report/builder.hpp"
#include "common/grading/class_checks.hpp"
#include "common/grading/copies.hpp"
#include "common/grading/grade_rows.hpp"
#include "common/report/integrity.hpp"
#include "common/report/predict.hpp"
#include "common/report/provenance.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;
namespace fs = std::filesystem;
using testing_support::reference_run_name;
using Outcome = testing_support::CliOutcome;

namespace {

Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

nlohmann::json reference_json(int lesson) { return nlohmann::json::parse(*reference_run(reference_run_name(lesson))); }

SavedRun saved(const Report& r, const std::string& source = "run.json") {
  return parse_saved_runs(report_to_json(r).dump(), source).front();
}

// A run of lesson 03 as this build makes one: its own samples (`seed` sets them apart), a
// provenance, sealed.
Report own_run(int seed, long long uid = 1001) {
  ReportBuilder b({Param{"streams", "4", true}, Param{"size", "64MiB", true}});
  std::vector<double> samples;
  for (int i = 0; i < 12; ++i) samples.push_back(1.0 + 0.001 * i + 1e-6 * seed);
  b.section("s", "s", "").metric(measured("time", "time", "ms", samples));
  b.verify("results", true, "all match");
  Report r = std::move(b).build();
  r.tool_version = "0.1.0+c1a55c1a55c1";
  r.recorded_at = "2026-11-26T10:00:00Z";
  r.lesson_number = 3;
  r.lesson_slug = testing_support::slug_of(3);
  r.devices.push_back(DeviceSummary{0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 3});
  stamp_provenance(r, {"GPU-aaaa"});
  r.provenance->uid = uid;
  r.provenance->user = fmt::format("user{}", uid);
  seal(r);
  return r;
}

GradeRow row_of(const SavedRun& run, const std::string& student, std::optional<long long> owner = std::nullopt,
                double submitted = 0) {
  GradeRow row;
  row.file = student + "-" + run.source;
  row.run = &run;
  row.student = student;
  row.owner_uid = owner;
  row.submitted_s = submitted;
  return row;
}

bool has_flag(const GradeRow& row, const std::string& text) {
  for (const auto& f : row.flags) {
    if (f.en().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

// ── provenance ────────────────────────────────────────────────────────────────────────────────

TEST(Provenance, TheSchedulerContextComesFromSlurmOrALauncherAndIsKeptPrintable) {
  const std::map<std::string, std::string> env = {
      {"SLURM_JOB_ID", "4242"},  {"SLURM_ARRAY_JOB_ID", "4240"}, {"SLURM_ARRAY_TASK_ID", "2"},
      {"SLURMD_NODENAME", "gpu-node-3"}, {"SLURM_NODEID", "0"}, {"SLURM_JOB_GPUS", "0,1"},
      {"SLURM_PROCID", "5"},     {"RANK", "1"},                {"SLURM_NTASKS", "2"},
      {"LOCAL_RANK", "\x1b[31m" + std::string(100, 'x')}};
  const SchedulerContext s = scheduler_context([&](const char* name) -> const char* {
    const auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  });
  EXPECT_EQ(s.job_id, "4242");
  EXPECT_EQ(s.array_job_id, "4240");
  EXPECT_EQ(s.array_task_id, "2");
  EXPECT_EQ(s.node, "gpu-node-3");
  EXPECT_EQ(s.node_id, "0");
  EXPECT_EQ(s.gpus, "0,1");
  EXPECT_EQ(s.rank, "1") << "torchrun's RANK before Slurm's SLURM_PROCID";
  EXPECT_EQ(s.world_size, "2");
  EXPECT_EQ(s.local_rank.find('\x1b'), std::string::npos) << s.local_rank;
  EXPECT_LE(s.local_rank.size(), 70u);
  EXPECT_TRUE(scheduler_context([](const char*) -> const char* { return nullptr; }).empty());
  const SchedulerContext plain = scheduler_context([](const char* name) -> const char* {
    return std::string(name) == "CUDA_VISIBLE_DEVICES" ? "3" : nullptr;
  });
  EXPECT_EQ(plain.gpus, "3") << "without Slurm, the GPUs allocated are CUDA_VISIBLE_DEVICES";
  // srun's step sets SLURM_STEP_GPUS (and no SLURM_JOB_GPUS); a step of a batch job has both.
  const SchedulerContext step = scheduler_context([](const char* name) -> const char* {
    const std::string n(name);
    return n == "SLURM_STEP_GPUS" ? "2,3" : n == "SLURM_JOB_GPUS" ? "0,1,2,3" : n == "CUDA_VISIBLE_DEVICES" ? "0,1" : nullptr;
  });
  EXPECT_EQ(step.gpus, "2,3") << "the step's GPUs before the job's";
}

TEST(Provenance, EveryRunSaysWhoMadeItWhereWithARandomIdInsideItsDigest) {
  const Report a = own_run(1), b = own_run(2);
  ASSERT_TRUE(a.provenance && b.provenance);
  EXPECT_EQ(a.provenance->run_id.size(), 32u);
  EXPECT_NE(a.provenance->run_id, b.provenance->run_id);
  const Provenance mine = current_provenance({"GPU-x"});
  EXPECT_EQ(mine.uid, static_cast<long long>(::geteuid()));
  EXPECT_FALSE(mine.user.empty());
  EXPECT_FALSE(mine.host.empty());

  nlohmann::json j = report_to_json(a);
  ASSERT_TRUE(j.contains("provenance"));
  const SavedRun back = parse_saved_runs(j.dump(), "a.json").front();
  EXPECT_EQ(back.integrity.state, Integrity::intact) << back.integrity.describe();
  ASSERT_TRUE(back.report.provenance);
  EXPECT_EQ(back.report.provenance->run_id, a.provenance->run_id);
  EXPECT_EQ(back.report.provenance->gpu_uuids, std::vector<std::string>{"GPU-aaaa"});

  j["provenance"]["user"] = "somebody-else";  // an identity edited by hand
  EXPECT_EQ(parse_saved_runs(j.dump(), "a.json").front().integrity.state, Integrity::modified);
}

TEST(Provenance, ShowPrintsWhoMadeARecordedRunAndTheSchedulerJob) {
  Report r = own_run(3);
  r.provenance->scheduler.job_id = "4242";
  r.provenance->scheduler.node = "gpu-node-3";
  seal(r);
  const fs::path path = fs::path(testing::TempDir()) / "made-by.json";
  std::ofstream(path) << report_to_json(r).dump();
  const Outcome o = run({"show", path.string(), "--color", "never"});
  EXPECT_NE(o.out.find("made by user1001 on gpu-node-3 · Slurm job 4242"), std::string::npos) << o.out;
  const Outcome zh = run({"show", path.string(), "--color", "never", "--lang", "zh"});
  EXPECT_NE(zh.out.find("由 user1001 在 gpu-node-3 上运行 · Slurm 作业 4242"), std::string::npos) << zh.out;
}

// Issue 37: two tasks of one srun on two nodes hand in a run each; grade shows each row's node
// (the scheduler's, over the host), in every table form.
TEST(Provenance, GradeOfRunsFromTwoSrunTasksShowsEachOnesNode) {
  std::vector<SavedRun> runs;
  for (int task = 0; task < 2; ++task) {
    Report r = own_run(10 + task, 1001 + task);
    r.provenance->host = "login-node";  // the scheduler's node name wins over the host
    r.provenance->scheduler.job_id = "4242";
    r.provenance->scheduler.node = fmt::format("gpu-node-{}", task + 1);
    r.provenance->scheduler.rank = std::to_string(task);
    r.provenance->scheduler.world_size = "2";
    seal(r);
    runs.push_back(saved(r, fmt::format("task{}.json", task)));
  }
  const std::vector<GradeRow> rows = {row_of(runs[0], "user1001"), row_of(runs[1], "user1002")};
  const std::string text = render_grades(rows, TableFormat::text, 200);
  EXPECT_NE(text.find("node gpu-node-1"), std::string::npos) << text;
  EXPECT_NE(text.find("node gpu-node-2"), std::string::npos) << text;
  EXPECT_EQ(text.find("login-node"), std::string::npos) << text;
  const std::string csv = render_grades(rows, TableFormat::csv, 200);
  EXPECT_NE(csv.find(",gpu-node-1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",gpu-node-2,"), std::string::npos) << csv;
  const std::string zh = render_grades(rows, TableFormat::text, 200, Lang::zh);
  EXPECT_NE(zh.find("gpu-node-2"), std::string::npos) << zh;
  EXPECT_EQ(zh.find("node gpu-node-2"), std::string::npos) << "the word 'node' is translated: " << zh;
}

// ── copies and the integrity line ─────────────────────────────────────────────────────────────

TEST(Copies, AReferenceRunIsCaughtByItsDigestAndByItsMeasurementsAfterItsIdentityWasRewritten) {
  const nlohmann::json reference = reference_json(4);
  const SavedRun copy = parse_saved_runs(reference.dump(), "frank-04.json").front();
  const auto as_is = copied_reference(copy.report);
  ASSERT_TRUE(as_is);
  EXPECT_EQ(as_is->reference, reference_run_name(4));
  EXPECT_EQ(as_is->mark, "the same run id");  // a sealed reference carries its run id

  Report forged = report_from_json(reference);  // someone else's name on it, sealed again
  stamp_provenance(forged, {"GPU-forged"});
  forged.tool_version = "0.1.0+c1a55c1a55c1";
  seal(forged);
  const auto resealed = copied_reference(forged);
  ASSERT_TRUE(resealed);
  EXPECT_EQ(resealed->mark, "the same measurements");

  for (auto& section : forged.sections) {
    for (auto& metric : section.metrics) {
      for (auto& sample : metric.samples) sample *= 1.0 + 1e-9;  // its own samples, however close
    }
  }
  EXPECT_FALSE(copied_reference(forged)) << "a run of its own is no copy";
  EXPECT_EQ(marks_of(Report{}).measurements, "") << "a run with too few samples has no measurement mark";
}

TEST(Copies, TheGraderFormsOfATamperedOrCopiedRunNeverDiffCleanAgainstTheReference) {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_integrity_line";
  fs::create_directories(dir);
  nlohmann::json tampered = reference_json(3);
  for (auto& section : tampered["sections"]) {
    for (auto& metric : section["metrics"]) {
      if (metric.contains("median")) metric["median"] = metric["median"].get<double>() * 1.5;
      for (auto& sample : metric["samples"]) sample = sample.get<double>() * 1.5;
    }
  }
  std::ofstream(dir / "alice-03.json") << tampered.dump();
  std::ofstream(dir / "frank-03.json") << reference_json(3).dump();
  std::ofstream(dir / "broken-03.json") << reference_json(3).dump().substr(0, 100);
  for (const std::string form : {"--stable", "--portable"}) {
    const Outcome reference = run({"show", "03", form});
    ASSERT_EQ(reference.code, 0) << reference.err;
    EXPECT_EQ(reference.out.rfind("lesson 03 ", 0), 0u) << "the reference has no integrity line:\n" << reference.out;
    const Outcome edited = run({"show", (dir / "alice-03.json").string(), form});
    EXPECT_EQ(edited.code, to_int(ExitCode::verify_failed));
    EXPECT_EQ(edited.out.rfind("integrity modified: its digest does not match its contents\n", 0), 0u) << edited.out;
    EXPECT_NE(edited.out, reference.out);
    const Outcome copied = run({"show", (dir / "frank-03.json").string(), form});
    EXPECT_EQ(copied.out.rfind("integrity copy of the built-in reference run " + reference_run_name(3) +
                                   " (the same run id)\n",
                               0),
              0u)
        << copied.out;
    EXPECT_NE(copied.out, reference.out);
    const Outcome broken = run({"show", (dir / "broken-03.json").string(), form});
    EXPECT_EQ(broken.code, to_int(ExitCode::usage));
    EXPECT_EQ(broken.out.rfind("integrity unreadable: ", 0), 0u) << broken.out;
  }
}

// ── the class's checks ────────────────────────────────────────────────────────────────────────

TEST(ClassChecks, AnHonestRunOfTheAssignmentPassesAndEachDepartureIsFlaggedWithItsReason) {
  ClassPolicy policy;
  policy.lessons = {3};
  policy.params[3] = {Param{"streams", "4", true}};
  policy.build = "0.1.0+c1a55c1a55c1";
  policy.gpus = {"GPU-aaaa"};
  policy.opens = "2026-11-20T00:00:00Z";
  policy.due = "2026-11-30T00:00:00Z";
  std::deque<SavedRun> runs;
  const auto add = [&](Report r) -> const SavedRun& { return runs.emplace_back(saved(r, fmt::format("{}.json", runs.size()))); };
  std::vector<GradeRow> rows;
  rows.push_back(row_of(add(own_run(1, 1001)), "alice", 1001));                       // honest
  rows.push_back(row_of(add(own_run(2, 1001)), "bob", 1002));                         // alice's run, handed in by bob
  Report wrong_flags = own_run(3, 1003);
  wrong_flags.params[0].value = "8";
  seal(wrong_flags);
  rows.push_back(row_of(add(wrong_flags), "carol", 1003));
  Report dirty = own_run(4, 1004);
  dirty.tool_version += "-dirty";
  seal(dirty);
  rows.push_back(row_of(add(dirty), "dave", 1004));
  Report late = own_run(5, 1005);
  late.recorded_at = "2026-12-01T00:00:00Z";
  late.provenance->gpu_uuids = {"GPU-bbbb"};
  seal(late);
  rows.push_back(row_of(add(late), "erin", 1005));
  GradeRow misnamed = row_of(add(own_run(6, 1006)), "frank", 1006);
  misnamed.named_lesson = 8;
  rows.push_back(misnamed);
  check_class_runs(rows, policy);

  EXPECT_TRUE(rows[0].flags.empty()) << rows[0].flags.front();
  EXPECT_TRUE(grade_passes(rows[0]));
  EXPECT_TRUE(has_flag(rows[1], "made by user1001 (uid 1001), handed in by bob (uid 1002)")) << rows[1].flags.size();
  EXPECT_TRUE(has_flag(rows[2], "param streams=8, not the assigned 4"));
  EXPECT_TRUE(has_flag(rows[3], "made by a build with uncommitted changes (0.1.0+c1a55c1a55c1-dirty)"));
  EXPECT_TRUE(has_flag(rows[3], "not the class's 0.1.0+c1a55c1a55c1"));
  EXPECT_TRUE(has_flag(rows[4], "made 2026-12-01T00:00:00Z, after it was due at 2026-11-30T00:00:00Z"));
  EXPECT_TRUE(has_flag(rows[4], "not one of the class's GPUs"));
  EXPECT_TRUE(has_flag(rows[5], "its name says lesson 08, but it holds lesson 03"));
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_FALSE(grade_passes(rows[i])) << i;
}

TEST(ClassChecks, OneRunHandedInByTwoStudentsAndACopyOfAReferenceAreFlagged) {
  std::deque<SavedRun> runs;
  const Report shared = own_run(7);
  runs.push_back(saved(shared, "erin.json"));
  runs.push_back(saved(shared, "frank.json"));
  runs.push_back(parse_saved_runs(reference_json(4).dump(), "dave.json").front());
  std::vector<GradeRow> rows{row_of(runs[0], "erin"), row_of(runs[1], "frank"), row_of(runs[2], "dave")};
  check_class_runs(rows, ClassPolicy{});
  EXPECT_TRUE(has_flag(rows[0], "the same run as frank-frank.json, handed in by frank (the same run id)"));
  EXPECT_TRUE(has_flag(rows[1], "the same run as erin-erin.json, handed in by erin (the same run id)"));
  EXPECT_TRUE(has_flag(rows[2], "a copy of the built-in reference run " + reference_run_name(4) + " (the same run id)"));
  Report unstamped = own_run(11);  // made by a build from before runs said who and where
  unstamped.provenance.reset();
  std::deque<SavedRun> old_runs{saved(unstamped, "gina.json")};
  std::vector<GradeRow> old_rows{row_of(old_runs[0], "gina")};
  check_class_runs(old_rows, ClassPolicy{});
  EXPECT_TRUE(has_flag(old_rows[0], "it does not say who made it or where"));
  ClassPolicy assigned;
  assigned.lessons = {3, 5};
  std::vector<GradeRow> again{row_of(runs[2], "dave")};
  check_class_runs(again, assigned);
  EXPECT_TRUE(has_flag(again[0], "lesson 04 " + testing_support::slug_of(4) + " is not assigned (the class assigns 03, 05)"));
}

TEST(ClassChecks, OnlyAStudentsLatestSubmissionOfALessonCounts) {
  std::deque<SavedRun> runs{saved(own_run(8)), saved(own_run(9))};
  Report failed = own_run(10);
  failed.checks.front().passed = false;
  failed.checks.front().count.reset();
  seal(failed);
  runs.push_back(saved(failed));
  std::vector<GradeRow> rows{row_of(runs[2], "alice", std::nullopt, 100), row_of(runs[0], "alice", std::nullopt, 300),
                             row_of(runs[1], "bob", std::nullopt, 50)};
  check_class_runs(rows, ClassPolicy{});
  EXPECT_TRUE(rows[0].superseded) << "the failed run came first";
  EXPECT_FALSE(rows[1].superseded);
  EXPECT_TRUE(grade_passes(rows[0]) && grade_passes(rows[1]) && grade_passes(rows[2]));
  const Gradebook book = make_gradebook(rows, ClassPolicy{});
  EXPECT_EQ(book.students, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(book.cell("alice", 3), &rows[1]);
}

// The hand-in time is the drop folder's ctime (GradeRow::submitted_s), which no student sets back:
// late is judged by it, with the grace and a student's extension.
TEST(ClassChecks, AHandInAfterItWasDueIsLateUnlessGraceOrAnExtensionCoversIt) {
  ClassPolicy policy;
  policy.due = "2026-11-30T00:00:00Z";
  const double due_s = 1795996800;  // 2026-11-30T00:00:00Z
  std::deque<SavedRun> runs{saved(own_run(21)), saved(own_run(22)), saved(own_run(23)), saved(own_run(24))};
  std::vector<GradeRow> rows{row_of(runs[0], "alice", std::nullopt, due_s - 60), row_of(runs[1], "bob", std::nullopt, due_s + 300),
                             row_of(runs[2], "carol", std::nullopt, due_s + 300), row_of(runs[3], "dave", std::nullopt, due_s + 86400 * 3)};
  policy.extensions = {{"carol", "2026-12-01T00:00:00Z"}, {"dave", "2026-12-01T00:00:00Z"}};
  check_class_runs(rows, policy);
  EXPECT_TRUE(rows[0].flags.empty());
  ASSERT_EQ(rows[1].flags.size(), 1u);
  EXPECT_EQ(rows[1].flags[0].en(), "handed in 2026-11-30T00:05:00Z, after it was due at 2026-11-30T00:00:00Z");
  EXPECT_TRUE(rows[2].flags.empty()) << "carol's extension covers her";
  EXPECT_TRUE(has_flag(rows[3], "handed in 2026-12-03T00:00:00Z, after the extension to 2026-12-01T00:00:00Z"));
  for (auto& row : rows) row.flags.clear();
  policy.grace_minutes = 10;
  check_class_runs(rows, policy);
  EXPECT_TRUE(rows[1].flags.empty()) << "five minutes late is inside ten minutes' grace";
  EXPECT_FALSE(rows[3].flags.empty());
}

// Holes a hostile student found (issue 46): a run with no verify check, and the CSV of a
// superseded row.
TEST(ClassChecks, ARunWithNoVerifyCheckNeverPassesAndASupersededRowHasPassesZero) {
  Report unchecked = own_run(25);
  unchecked.checks.clear();
  seal(unchecked);
  std::deque<SavedRun> runs{saved(unchecked), saved(own_run(26)), saved(own_run(27))};
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "bob", std::nullopt, 100), row_of(runs[2], "bob", std::nullopt, 200)};
  check_class_runs(rows, ClassPolicy{});
  EXPECT_FALSE(grade_passes(rows[0]));
  const auto problems = grade_problems(rows[0]);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems.back().en(), "it has no verify check: nothing in it was checked against the CPU");
  ASSERT_TRUE(rows[1].superseded);
  const std::string csv = render_grades(rows, TableFormat::csv, 200);
  std::istringstream lines(csv);
  std::string line;
  std::vector<std::string> passes;
  while (std::getline(lines, line)) passes.push_back(line.substr(line.rfind(',') + 1));
  EXPECT_EQ(passes, (std::vector<std::string>{"passes", "0", "0", "1"})) << csv;
}

// ── the gradebook and its exports ─────────────────────────────────────────────────────────────

TEST(Gradebook, TextMarkdownCsvAndGradescopeHoldOneRowPerStudent) {
  std::deque<SavedRun> runs{saved(own_run(11)), saved(own_run(12))};
  Report dirty = own_run(13);
  dirty.tool_version += "-dirty";
  seal(dirty);
  runs.push_back(saved(dirty));
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "bob"), row_of(runs[2], "carol")};
  GradeRow broken;
  broken.file = "carol-05.json";
  broken.problem = "'carol-05.json' is not valid JSON";
  rows.push_back(broken);
  ClassPolicy policy;
  policy.lessons = {3, 5};
  policy.lesson_names = {{3, "03 stream-overlap"}, {5, "05 callbacks"}};
  check_class_runs(rows, policy);
  const Gradebook book = make_gradebook(rows, policy);

  const std::string text = render_gradebook(book, TableFormat::text, 80);
  EXPECT_NE(text.find("gradebook · students: 3 · lessons: 2"), std::string::npos) << text;
  EXPECT_NE(text.find("  alice    ✓   —   1/2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  carol    ✗   —   0/2\n"), std::string::npos) << text;
  const std::string csv = render_gradebook(book, TableFormat::csv, 80);
  EXPECT_EQ(csv, "student,03 stream-overlap,05 callbacks,passed,lessons\nalice,1,,1,2\nbob,1,,1,2\ncarol,0,,0,2\n");
  const std::string md = render_gradebook(book, TableFormat::md, 80);
  EXPECT_EQ(md.rfind("| student | 03 stream-overlap | 05 callbacks | passed | lessons |\n|---|:---:|:---:|---:|---:|\n", 0), 0u)
      << md;

  // One student's submission for Gradescope: a test per lesson, the file that is no run as a
  // test of no points, the score their sum.
  std::vector<GradeRow> mine{row_of(runs[2], "submission"), broken};
  check_class_runs(mine, policy);
  const auto results = nlohmann::json::parse(render_gradescope(mine, make_gradebook(mine, policy)));
  EXPECT_EQ(results["score"], 0);
  ASSERT_EQ(results["tests"].size(), 3u) << results.dump(2);
  EXPECT_EQ(results["tests"][0]["name"], "03 stream-overlap");
  EXPECT_EQ(results["tests"][0]["status"], "failed");
  EXPECT_EQ(results["tests"][0]["max_score"], 1);
  EXPECT_NE(results["tests"][0]["output"].get<std::string>().find("uncommitted changes"), std::string::npos);
  EXPECT_EQ(results["tests"][1]["output"], "no run of this lesson was handed in\n");
  EXPECT_EQ(results["tests"][2]["max_score"], 0);
  // Gradescope sees one submission: the summary says classmates' copies are not found there.
  EXPECT_NE(results["output"].get<std::string>().find("graded alone here"), std::string::npos) << results.dump(2);
}

// Predictions scored (issue 46 item 5): an answer counts when it is within the band of what the
// run itself measured; grade shows how many in every form, and Gradescope gives points for each.
TEST(Predictions, AnAnswerInTheBandOfTheRunsOwnMeasurementScoresInEveryForm) {
  Report r = own_run(21);
  const double median = r.find_metric("time")->summary().median;
  r.guesses = {{"time", "q1", median * 1.24}, {"time", "q2", median * 0.76}, {"time", "q3", median * 1.26},
               {"time", "q4", median * 0.5}, {"not-measured", "q5", 1.0}};
  seal(r);
  EXPECT_EQ(in_band(r.guesses[0], r), std::optional<bool>(true));
  EXPECT_EQ(in_band(r.guesses[1], r), std::optional<bool>(true));
  EXPECT_EQ(in_band(r.guesses[2], r), std::optional<bool>(false));
  EXPECT_EQ(in_band(r.guesses[3], r), std::optional<bool>(false));
  EXPECT_FALSE(in_band(r.guesses[4], r).has_value()) << "a metric the run did not measure cannot be in its band";
  EXPECT_EQ(score_predictions(r).in_band, 2u);
  EXPECT_EQ(score_predictions(r).made, 5u);

  std::deque<SavedRun> runs{saved(r), saved(own_run(22))};
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "bob")};
  ClassPolicy policy;
  policy.lessons = {3};
  policy.lesson_names = {{3, "03 stream-overlap"}};
  policy.prediction_points = 2;
  check_class_runs(rows, policy);
  const std::string text = render_grades(rows, TableFormat::text, 200);
  EXPECT_NE(text.find("predictions 2 of 5 in the band"), std::string::npos) << text;
  EXPECT_EQ(text.find("predictions 0 of 0"), std::string::npos) << "bob made none: nothing to show\n" << text;
  const std::string csv = render_grades(rows, TableFormat::csv, 200);
  EXPECT_NE(csv.find(",expect_passed,expect_total,predictions_in_band,predictions,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,1,0,0,2,5,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,1,0,0,0,0,"), std::string::npos) << csv;
  EXPECT_NE(render_grades(rows, TableFormat::md, 200).find("| 2/5 |"), std::string::npos);

  std::vector<GradeRow> mine{row_of(runs[0], "submission")};
  check_class_runs(mine, policy);
  const auto results = nlohmann::json::parse(render_gradescope(mine, make_gradebook(mine, policy)));
  ASSERT_EQ(results["tests"].size(), 2u) << results.dump(2);
  EXPECT_EQ(results["tests"][1]["name"], "predictions");
  EXPECT_EQ(results["tests"][1]["score"], 4.0);
  EXPECT_EQ(results["tests"][1]["max_score"], 10.0);
  EXPECT_EQ(results["score"], results["tests"][0]["score"].get<double>() + 4.0) << results.dump(2);
  policy.prediction_points = 0;  // shown in every form, scored in none
  EXPECT_EQ(nlohmann::json::parse(render_gradescope(mine, make_gradebook(mine, policy)))["tests"].size(), 1u);
}

// A roster (issue 46 item 3): every student on it is a row, hand-ins or not, with the ids an LMS
// import matches on; those lacking an assigned lesson are named.
TEST(Gradebook, EveryStudentOnTheRosterIsARowWithTheLmsIds) {
  const auto roster = parse_roster(
      "\xEF\xBB\xBFName,SIS User ID,user,email,Section\r\n"
      "\"Liddell, Alice\",S-001,alice,alice@uni.example,A\n"
      "Bob Tables,S-002,bob,\"bob@uni.example\",A\n"
      "\n"
      "Erin,S-005,erin,erin@uni.example,B\n",
      "students.csv");
  ASSERT_EQ(roster.size(), 3u);
  EXPECT_EQ(roster[0].name, "Liddell, Alice");
  EXPECT_EQ(roster[0].id, "S-001");
  EXPECT_EQ(roster[2].email, "erin@uni.example");

  std::deque<SavedRun> runs{saved(own_run(31)), saved(own_run(32))};
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "mallory")};  // mallory: not on it
  ClassPolicy policy;
  policy.lessons = {3};
  policy.lesson_names = {{3, "03 stream-overlap"}};
  policy.roster = roster;
  check_class_runs(rows, policy);
  const Gradebook book = make_gradebook(rows, policy);
  EXPECT_EQ(book.students, (std::vector<std::string>{"alice", "bob", "erin", "mallory"}));
  EXPECT_EQ(render_gradebook(book, TableFormat::csv, 80),
            "student,SIS User ID,name,email,03 stream-overlap,passed,lessons\n"
            "alice,S-001,\"Liddell, Alice\",alice@uni.example,1,1,1\n"
            "bob,S-002,Bob Tables,bob@uni.example,,0,1\n"
            "erin,S-005,Erin,erin@uni.example,,0,1\n"
            "mallory,,,,1,1,1\n");
  const auto missing = book.missing();
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].first, "bob");
  EXPECT_EQ(missing[1], (std::pair<std::string, std::vector<int>>{"erin", {3}}));
  EXPECT_TRUE(make_gradebook(rows, ClassPolicy{}).missing().empty()) << "no roster: nobody is missing";
}

TEST(Roster, AMalformedRosterIsOneLineNamingItsFileAndLine) {
  const auto error_of = [](const std::string& text) {
    try {
      parse_roster(text, "students.csv");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of("name,email\nA,a@x\n"), "roster students.csv:1: its first line names no user column (user, id, name, email)");
  EXPECT_EQ(error_of("user,id\nalice,1\nbob\n"), "roster students.csv:3: 1 fields where the first line names 2");
  EXPECT_EQ(error_of("user\nalice\nalice\n"), "roster students.csv:3: the user alice is on the roster twice");
  EXPECT_EQ(error_of("user,name\nalice,\"Alice\n"), "roster students.csv:2: a quote is never closed");
  EXPECT_EQ(error_of("user,user\n"), "roster students.csv:1: the column user is named twice");
  EXPECT_EQ(error_of("user,id\n,1\n"), "roster students.csv:2: a student with no user");
  EXPECT_EQ(error_of("user\n" + std::string(300, 'a') + "\n"), "roster students.csv:2: a field is longer than 256 characters");
  std::string many = "user\n";
  for (std::size_t i = 0; i <= kMaxRosterStudents; ++i) many += "s" + std::to_string(i) + "\n";
  EXPECT_EQ(error_of(many), "roster students.csv:10002: more than 10000 students");
  EXPECT_EQ(error_of("user\n"), "accepted") << "a roster of no students is a roster";
}

TEST(Gradebook, CompareCsvGivesTheToleranceInPercentAsTheFlagTakesIt) {
  const Outcome csv = run({"compare", "03", "03", "--format", "csv", "--tolerance", "0.1%", "--bom"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("\xEF\xBB\xBF" "baseline,run,kind,key,unit,headline,baseline_value,run_value,ratio,tolerance_percent,verdict\n", 0),
            0u)
      << csv.out;
  EXPECT_NE(csv.out.find(",1,0.1,ok\n"), std::string::npos) << csv.out;
  const Outcome text = run({"compare", "03", "03", "--tolerance", "0.1"});
  EXPECT_NE(text.out.find(" 0.1%  "), std::string::npos) << "0.1% is not shown as 0%:\n" << text.out;
  EXPECT_EQ(run({"grade", ".", "--bom"}).code, to_int(ExitCode::usage)) << "--bom is for CSV only";
}

// ── the class preset's [grade] section ────────────────────────────────────────────────────────

TEST(ClassPreset, GradeSectionKeysAndTheirErrors) {
  const PresetFile f = parse_presets(
      "[stream-overlap]\nstreams = 4\n\n[grade]\ndrop = \"/srv/in\"\nlessons = [\"03\", 5]\nbuild = \"0.1.0+abc\"\n"
      "gpus = [\"GPU-aaaa\"]\nopens = 2026-11-20T09:00:00Z\ndue = 2026-12-01T23:59:00+08:00\n",
      "class.toml");
  ASSERT_TRUE(f.grade);
  EXPECT_EQ(f.sections.size(), 1u) << "[grade] is not a lesson's section";
  EXPECT_EQ(f.grade->drop, "/srv/in");
  EXPECT_EQ(f.grade->lessons, (std::vector<std::string>{"03", "5"}));
  EXPECT_EQ(f.grade->gpus, std::vector<std::string>{"GPU-aaaa"});
  EXPECT_EQ(f.grade->opens, "2026-11-20T09:00:00Z");
  EXPECT_EQ(f.grade->due, "2026-12-01T15:59:00Z") << "converted to UTC";
  const auto error_of = [](const std::string& text) {
    try {
      parse_presets(text, "class.toml");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("[grade]\ndrops = \"x\"\n"),
            "--config class.toml:2 [grade] drops: is not a key of [grade] (drop, lessons, build, gpus, opens, due, "
            "grace_minutes, extensions, seal, roster, prediction_points); did you mean drop?");
  EXPECT_NE(error_of("[grade]\ngrace_minutes = -5\n").find("takes a whole number from 0 to 10080"), std::string::npos);
  EXPECT_NE(error_of("[grade]\ngrace_minutes = \"10\"\n").find("takes a whole number"), std::string::npos);
  EXPECT_NE(error_of("[grade]\nseal = \"maybe\"\n").find("takes \"class\" or \"none\""), std::string::npos);
  EXPECT_NE(error_of("[grade]\nextensions = [\"alice\"]\n").find("takes a table of students and times"), std::string::npos);
  EXPECT_NE(error_of("[grade]\nextensions = { alice = \"tomorrow\" }\n").find("[grade] alice: takes a date and time"),
            std::string::npos);
  const PresetFile more = parse_presets(
      "[grade]\ngrace_minutes = 15\nseal = \"none\"\nextensions = { alice = 2026-12-03T08:00:00+08:00, \"uid 1002\" = 2026-12-04T00:00:00Z }\n",
      "class.toml");
  EXPECT_EQ(more.grade->grace_minutes, 15);
  EXPECT_FALSE(more.grade->class_seal);
  EXPECT_EQ(more.grade->extensions, (std::map<std::string, std::string>{{"alice", "2026-12-03T00:00:00Z"},
                                                                        {"uid 1002", "2026-12-04T00:00:00Z"}}));
  EXPECT_NE(error_of("[grade]\ndue = \"2026-12-01\"\n").find("takes a date and time with its offset"), std::string::npos);
  EXPECT_NE(error_of("[grade]\ndue = 2026-12-01T10:00:00\n").find("with its offset"), std::string::npos);
  EXPECT_NE(error_of("[grade]\nopens = 2026-12-02T00:00:00Z\ndue = 2026-12-01T00:00:00Z\n").find("is before opens"),
            std::string::npos);
  EXPECT_NE(error_of("[grade]\ngpus = [1.5]\n").find("takes a list of texts"), std::string::npos);
}

TEST(ClassPreset, GradeChecksTheAssignedFlagsAsTheLessonPrintsThem) {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_assigned";
  fs::remove_all(dir);
  fs::create_directories(dir / "runs");
  std::ofstream(dir / "runs" / "alice-03.json") << reference_json(3).dump();
  const std::string streams = [] {
    for (const auto& p : report_from_json(reference_json(3)).params) {
      if (p.name == "streams") return p.value;
    }
    return std::string("?");
  }();
  std::ofstream(dir / "class.toml") << "[stream-overlap]\nstreams = 8\n[grade]\nlessons = [\"stream-overlap\"]\n";
  const Outcome o = run({"grade", (dir / "runs").string(), "--config", (dir / "class.toml").string()});
  EXPECT_EQ(o.code, to_int(ExitCode::verify_failed));
  EXPECT_NE(o.out.find("param streams=" + streams + ", not the assigned 8"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("handed in by alice"), std::string::npos) << o.out;
  std::ofstream(dir / "bad.toml") << "[grade]\nlessons = [\"99\"]\n";
  const Outcome bad = run({"grade", (dir / "runs").string(), "--config", (dir / "bad.toml").string()});
  EXPECT_EQ(bad.code, to_int(ExitCode::usage));
  EXPECT_NE(bad.err.find("[grade] lessons: '99' is not a lesson"), std::string::npos) << bad.err;
}

// ── the drop folder, as one user sees it ──────────────────────────────────────────────────────

TEST(DropFolder, AnUnsafeFolderIsRefusedAndASafeOneTakesNewFilesThatNeverReplaceEachOther) {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_drop";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0777);
  EXPECT_NE(check_drop_folder(dir.string()).en().find("anyone may list it"), std::string::npos);
  ::chmod(dir.c_str(), 0733);
  EXPECT_NE(check_drop_folder(dir.string()).en().find("lacks the sticky bit"), std::string::npos);
  ::chmod(dir.c_str(), 01733);
  EXPECT_NE(check_drop_folder(dir.string()).en().find("lacks the setgid bit"), std::string::npos);
  ::chmod(dir.c_str(), 03733);
  EXPECT_NE(check_drop_folder(dir.string()).en().find("its default ACL does not hide new files from others"), std::string::npos);
  // The default ACL an instructor gives it (setfacl -d -m u::rw,g::r,o::-): then the folder is safe,
  // and a file copied in by hand, asking for 0644, is made 0640.
  const std::unique_ptr<void, int (*)(void*)> acl(acl_from_text("u::rw,g::r,o::-"), acl_free);
  ASSERT_NE(acl, nullptr);
  ASSERT_EQ(acl_set_file(dir.c_str(), ACL_TYPE_DEFAULT, static_cast<acl_t>(acl.get())), 0) << std::strerror(errno);
  EXPECT_TRUE(check_drop_folder(dir.string()).empty()) << check_drop_folder(dir.string()).en();
  {
    const int copied = ::open((dir / "copied-by-hand.json").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    ASSERT_GE(copied, 0);
    ::close(copied);
    struct stat by_hand {};
    ASSERT_EQ(::stat((dir / "copied-by-hand.json").c_str(), &by_hand), 0);
    EXPECT_EQ(by_hand.st_mode & 0777, 0640u);
    fs::remove(dir / "copied-by-hand.json");
  }
  EXPECT_NE(check_drop_folder((dir / "missing").string()).en().find("install -d -m 3733"), std::string::npos);
  fs::create_directory_symlink(dir, dir.string() + "-link");
  EXPECT_NE(check_drop_folder(dir.string() + "-link").en().find("is a symbolic link"), std::string::npos);
  fs::remove(dir.string() + "-link");

  const Report r = own_run(14);
  const std::string text = report_to_json(r).dump();
  const std::string first = hand_in(dir.string(), text, r);
  const std::string second = hand_in(dir.string(), text, r);
  EXPECT_NE(first, second);
  EXPECT_EQ(first.find(fmt::format("-03-{}-", r.lesson_slug)) != std::string::npos, true) << first;
  struct stat st {};
  ASSERT_EQ(::stat((dir / first).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  std::size_t hidden = 0;
  for (const auto& e : fs::directory_iterator(dir)) hidden += e.path().filename().string()[0] == '.' ? 1 : 0;
  EXPECT_EQ(hidden, 0u) << "no half-written file is left behind";
}

TEST(DropFolder, SubmitWithoutAFolderIsRefusedBeforeTheLessonRuns) {
  testing_support::hide_gpus();
  unsetenv("CUDALAB_CLASS_DIR");
  const Outcome o = run({"03", "--submit"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("--submit: no drop folder"), std::string::npos) << o.err;
  EXPECT_TRUE(testing_support::one_line(o.err)) << o.err;
  const fs::path reference = fs::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs" / (reference_run_name(3) + ".json");
  const Outcome copy = run({"submit", reference.string()});
  EXPECT_EQ(copy.code, to_int(ExitCode::usage));
  EXPECT_NE(copy.err.find("submit: no drop folder"), std::string::npos) << copy.err;
}
