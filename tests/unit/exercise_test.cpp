// The exercise bench's generic side, without a GPU: the child runner's verdicts (fake children
// that crash, hang, exit early or flood), how the lab reads a child's outcome, the compiler's
// diagnostics, the interface line of a student's file, and the folder's statuses from made-up runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/core/errors.hpp"
#include "common/core/run_children.hpp"
#include "common/exercise/child_process.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/source_check.hpp"
#include "common/exercise/student_run.hpp"
#include "common/exercise/toolchain.hpp"
#include "common/exercise/workspace.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"

namespace cudalab {
namespace {

ChildSpec shell(const std::string& script, double limit_s = 5) {
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.time_limit_s = limit_s;
  return spec;
}

TEST(ChildProcess, ACrashIsTheSignalThatEndedIt) {
  const ChildOutcome o = run_child(shell("kill -SEGV $$"));
  EXPECT_EQ(o.ending, ChildEnding::signaled);
  EXPECT_EQ(signal_name(o.signal), "SIGSEGV");
  EXPECT_EQ(judge_child(o, "pipeline()", 5).verdict, StudentVerdict::crashed);
  EXPECT_EQ(judge_child(o, "pipeline()", 5).words.en(), "your pipeline() crashed with SIGSEGV");
}

TEST(ChildProcess, AHangIsKilledAtItsLimitWithItsChildren) {
  // A grandchild holding the pipes open must not keep the run waiting past the limit either.
  const ChildOutcome o = run_child(shell("sleep 30 & sleep 30", 0.5));
  EXPECT_EQ(o.ending, ChildEnding::timed_out);
  EXPECT_LT(o.wall_s, 1.5);  // the limit plus the second
  const StudentRun run = judge_child(o, "pipeline()", 0.5);
  EXPECT_EQ(run.verdict, StudentVerdict::timed_out);
  EXPECT_NE(run.words.en().find("within 0.5 s"), std::string::npos) << run.words.en();
}

TEST(ChildProcess, AnEarlyExitWithoutAResultIsSaid) {
  const ChildOutcome o = run_child(shell("echo 'my debug line'; exit 3"));
  EXPECT_EQ(o.ending, ChildEnding::exited);
  EXPECT_EQ(o.exit_code, 3);
  const StudentRun run = judge_child(o, "pipeline()", 5);
  EXPECT_EQ(run.verdict, StudentVerdict::exited_early);
  EXPECT_NE(run.words.en().find("exit status 3"), std::string::npos) << run.words.en();
  EXPECT_EQ(run.output, "my debug line\n");
}

TEST(ChildProcess, TheResultComesOnItsOwnDescriptorAndTheInputOnStdin) {
  ChildSpec spec = shell("cat >&3; echo printed");
  spec.input = child_result_frame(nlohmann::json{{"answer", 42}});
  const ChildOutcome o = run_child(spec);
  const StudentRun run = judge_child(o, "pipeline()", 5);
  ASSERT_EQ(run.verdict, StudentVerdict::ran) << run.words.en();
  EXPECT_EQ(run.result.at("answer"), 42);
  EXPECT_EQ(run.output, "printed\n");
}

TEST(ChildProcess, AFailureFrameKeepsItsKindAndStickiness) {
  ChildSpec spec = shell("cat >&3");
  spec.input = child_failure_frame("cuda", msg("your pipeline(): {call} failed", arg("call", "cudaMemcpyAsync(...)")), true);
  const StudentRun run = judge_child(run_child(spec), "pipeline()", 5);
  EXPECT_EQ(run.verdict, StudentVerdict::cuda_error);
  EXPECT_TRUE(run.sticky);
  EXPECT_EQ(run.words.en(), "your pipeline(): cudaMemcpyAsync(...) failed");
}

TEST(ChildProcess, ResultAndOutputAreBounded) {
  ChildSpec spec = shell("head -c 300000 /dev/zero | tr '\\0' x >&3; head -c 300000 /dev/zero | tr '\\0' y");
  spec.result_limit = 1000;
  spec.output_limit = 100;
  const ChildOutcome o = run_child(spec);
  EXPECT_TRUE(o.result_cut);
  EXPECT_EQ(o.result.size(), 1000u);
  EXPECT_EQ(o.output.size(), 100u);
  EXPECT_EQ(judge_child(o, "pipeline()", 5).verdict, StudentVerdict::exited_early);
}

TEST(ChildProcess, JunkOnTheResultDescriptorIsNotAResult) {
  ChildSpec spec = shell("printf '{not json' >&3");
  const StudentRun run = judge_child(run_child(spec), "pipeline()", 5);
  EXPECT_EQ(run.verdict, StudentVerdict::exited_early);
  EXPECT_NE(run.words.en().find("unreadable"), std::string::npos);
}

TEST(ChildProcess, AProgramThatCannotStartIsTheLabsProblem) {
  ChildSpec spec;
  spec.argv = {"/nonexistent/cudalab"};
  const ChildOutcome o = run_child(spec);
  EXPECT_EQ(o.ending, ChildEnding::not_started);
  EXPECT_THROW(judge_child(o, "pipeline()", 5), RuntimeError);
}

TEST(ChildProcess, TheChildIsCountedAsThisRunEvenAfterItEnded) {
  // On the lab H200 NVML could not tell idle from working processes: the child, counted as
  // another tenant, marked every exercise run disturbed, also in utilisation samples read after
  // it had ended.
  const ChildOutcome o = run_child(shell("exit 0"));
  ASSERT_GT(o.pid, 0);
  EXPECT_TRUE(is_run_child(o.pid));
  EXPECT_FALSE(is_run_child(static_cast<long>(::getpid())));
}

TEST(ChildProcess, TheChildGetsNoNewPrivileges) {
  const ChildOutcome o = run_child(shell("grep NoNewPrivs /proc/self/status"));
  EXPECT_NE(o.output.find("NoNewPrivs:\t1"), std::string::npos) << o.output;
}

TEST(Toolchain, DiagnosticsNameTheStudentsFileAndLine) {
  const std::string out =
      "cudalab-exercises/03-stream-overlap.cu(14): error: identifier \"chunkk\" is undefined\n"
      "cudalab-exercises/03-stream-overlap.cu: In function 'void pipeline(const PipelineLab&)':\n"
      "cudalab-exercises/03-stream-overlap.cu:21:5: error: expected ';' before '}' token\n"
      "/usr/include/c++/12/bits/foo.h:3:1: error: somebody else's\n"
      "1 error detected in the compilation of \"cudalab-exercises/03-stream-overlap.cu\".\n";
  const auto found = diagnostics_about(out, "cudalab-exercises/03-stream-overlap.cu");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0], "cudalab-exercises/03-stream-overlap.cu:14: error: identifier \"chunkk\" is undefined");
  EXPECT_EQ(found[1], "cudalab-exercises/03-stream-overlap.cu:21: error: expected ';' before '}' token");
}

TEST(Toolchain, CudalabNvccIsTakenAsNamedOrNotAtAll) {
  ::setenv("CUDALAB_NVCC", "/nonexistent/nvcc", 1);
  EXPECT_FALSE(find_toolchain().has_value());
  ::setenv("CUDALAB_NVCC", "/bin/true", 1);
  ASSERT_TRUE(find_toolchain().has_value());
  EXPECT_EQ(find_toolchain()->nvcc, "/bin/true");
  ::unsetenv("CUDALAB_NVCC");
}

const ExerciseDescription& first_exercise() {
  EXPECT_FALSE(registered_exercises().empty());
  return registered_exercises().front();
}

TEST(SourceCheck, TheInterfaceLineIsFoundAndCheckedByNameAndVersion) {
  const ExerciseDescription& e = first_exercise();
  EXPECT_TRUE(interface_problem(e.starter, e, e.file_name()).empty());
  EXPECT_TRUE(interface_problem(e.solution, e, e.file_name()).empty());
  std::string old = e.starter;
  const std::string current = "_v" + std::to_string(e.interface_version) + ".h";
  old.replace(old.find(current), current.size(), "_v0.h");
  const Message refused = interface_problem(old, e, e.file_name());
  ASSERT_FALSE(refused.empty());
  EXPECT_NE(refused.en().find(e.interface_name + " version 0"), std::string::npos) << refused.en();
  EXPECT_NE(refused.en().find("version " + std::to_string(e.interface_version)), std::string::npos);
  EXPECT_FALSE(interface_problem("int main() {}", e, e.file_name()).empty());
  const auto other = interface_of("  #include \"cudalab/other_thing_v7.h\"\n");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->name, "other_thing");
  EXPECT_EQ(other->version, 7);
  EXPECT_FALSE(interface_of("#include <cudalab/no_version.h>\n#include <cuda_runtime.h>\n").has_value());
}

TEST(Exercises, EachLivesInARegisteredLessonAndShipsItsFiles) {
  ASSERT_GE(registered_exercises().size(), 1u);
  for (const auto& e : registered_exercises()) {
    EXPECT_NE(e.make, nullptr) << e.id();
    EXPECT_NE(e.serve, nullptr) << e.id();
    EXPECT_FALSE(e.starter.empty()) << e.id();
    EXPECT_FALSE(e.solution.empty()) << e.id();
    EXPECT_NE(e.header.find(e.interface_name), std::string::npos) << e.id();
    EXPECT_NE(e.starter, e.solution) << e.id();
    EXPECT_GE(e.hints.size(), 2u) << e.id();
  }
}

// A made-up exercise run whose three checks say `ran`, `correct`, `done`.
Report exercise_run(bool ran, bool correct, bool done, const std::string& source) {
  Report r;
  r.lesson_number = 3;
  r.lesson_slug = "stream-overlap";
  r.checks.push_back({CheckKind::verify, kExerciseRanCheck, ran, "ran", {}, {}, {}});
  r.checks.push_back({CheckKind::verify, kExerciseCorrectCheck, correct, "correct", {}, {}, {}});
  r.checks.push_back({CheckKind::expect, kExerciseDoneCheck, done, "done", {}, {}, {}});
  r.exercise = ExerciseRecord{"03-stream-overlap", "x", 1, "03-stream-overlap.cu", source, source_digest(source)};
  return r;
}

TEST(Workspace, StatusesComeFromTheLastRun) {
  EXPECT_EQ(status_of_run(exercise_run(false, false, false, "")), ExerciseStatus::does_not_run);
  EXPECT_EQ(status_of_run(exercise_run(true, false, false, "")), ExerciseStatus::wrong_result);
  EXPECT_EQ(status_of_run(exercise_run(true, true, false, "")), ExerciseStatus::correct_but_slow);
  EXPECT_EQ(status_of_run(exercise_run(true, true, true, "")), ExerciseStatus::done);
  EXPECT_EQ(status_of_run(Report{}), ExerciseStatus::does_not_run);  // a run with no exercise checks is none
}

TEST(ExerciseRun, TheGraderFormSaysItIsAnExerciseAndTheJsonKeepsTheSource) {
  const Report run = exercise_run(true, true, true, "void pipeline() {}\n");
  const std::string stable = render_stable(run);
  EXPECT_NE(stable.find("exercise 03-stream-overlap x v1\n"), std::string::npos) << stable;
  EXPECT_EQ(stable.find("sha256"), std::string::npos);  // the source is the student's: not for a diff
  const auto back = parse_saved_runs(report_to_json(run).dump(), "made-up");
  ASSERT_TRUE(back.front().report.exercise.has_value());
  EXPECT_EQ(back.front().report.exercise->source, "void pipeline() {}\n");  // kept as written, newline and all
  nlohmann::json forged = report_to_json(run);
  forged["exercise"]["source_digest"] = "sha256:0000";  // a digest that is not the source's is not believed
  EXPECT_EQ(parse_saved_runs(forged.dump(), "forged").front().report.exercise->source_digest,
            source_digest("void pipeline() {}\n"));
}

TEST(Workspace, TheFolderRemembersAndNeverOverwrites) {
  const auto folder = std::filesystem::temp_directory_path() / ("cudalab-exercise-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  const Workspace ws(folder.string());
  const ExerciseDescription& e = first_exercise();
  EXPECT_EQ(ws.state(e).status, ExerciseStatus::not_started);
  EXPECT_TRUE(ws.write_starter(e));
  EXPECT_FALSE(ws.write_starter(e));  // the second time leaves the student's file alone
  { std::ofstream(ws.source_path(e)) << "my own work"; }
  EXPECT_FALSE(ws.write_starter(e));
  EXPECT_EQ(ws.read_source(e), "my own work");
  EXPECT_EQ(ws.state(e).status, ExerciseStatus::not_started);

  ws.save_compile_failure(e, source_digest("my own work"));
  EXPECT_EQ(ws.state(e).status, ExerciseStatus::does_not_compile);
  EXPECT_FALSE(ws.state(e).edited_since);

  ws.save_run(e, report_to_json(exercise_run(true, true, false, "my own work")).dump());
  EXPECT_EQ(ws.state(e).status, ExerciseStatus::correct_but_slow);
  EXPECT_FALSE(ws.state(e).edited_since);
  { std::ofstream(ws.source_path(e)) << "my own work, better"; }
  EXPECT_TRUE(ws.state(e).edited_since);

  ws.save_run(e, "{garbage");
  EXPECT_EQ(ws.state(e).status, ExerciseStatus::not_started);  // an unreadable record counts as none

  EXPECT_EQ(ws.hints_shown(e), 0);
  ws.set_hints_shown(e, 2);
  EXPECT_EQ(ws.hints_shown(e), 2);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace cudalab
