// Grading the code a student writes, without a GPU: sources that are one source (a classmate's, or
// the solution the lab ships, comments and whitespace aside), a row judged by the grader's re-run
// in every form, the feedback file, and the confinement a re-run's child puts itself in. The
// re-run itself on the lab GPU is tools/gpu-batch.sh's `rerun` mode.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "common/exercise/confinement.hpp"
#include "common/exercise/exercise.hpp"
#include "common/grading/class_checks.hpp"
#include "common/grading/source_copies.hpp"
#include "common/report/builder.hpp"
#include "common/report/integrity.hpp"
#include "common/report/provenance.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;
namespace fs = std::filesystem;

namespace {

const char* kSource = R"(#include <cudalab/stream_overlap_pipeline_v1.h>
// split the work into chunks
void pipeline(int n) {
  const char* s = "a  //  b";  /* not a comment: the literal is kept */
  for (int i = 0; i < n; ++i) { work(i); }
}
)";

// An exercise run of lesson 03 carrying `source`, made by `uid`, that passed its checks.
Report exercise_run(const std::string& source, int seed, long long uid = 1001) {
  ReportBuilder b({Param{"streams", "4", true}});
  std::vector<double> samples;
  for (int i = 0; i < 12; ++i) samples.push_back(1.0 + 0.001 * i + 1e-6 * seed);
  b.section("s", "s", "").metric(measured("time", "time", "ms", samples));
  b.verify(kExerciseRanCheck, true, "your pipeline() ran to its end");
  Report r = std::move(b).build();
  r.tool_version = "0.1.0+c1a55c1a55c1";
  r.recorded_at = "2026-11-26T10:00:00Z";
  r.lesson_number = 3;
  r.lesson_slug = testing_support::slug_of(3);
  r.exercise = ExerciseRecord{"03-stream-overlap", "stream_overlap_pipeline", 1, "03-stream-overlap.cu", source, ""};
  stamp_provenance(r, {"GPU-aaaa"});
  r.provenance->uid = uid;
  seal(r);
  return r;
}

SavedRun saved(const Report& r, const std::string& name) { return parse_saved_runs(report_to_json(r).dump(), name).front(); }

GradeRow row_of(const SavedRun& run, const std::string& student) {
  GradeRow row;
  row.file = student + "-03.json";
  row.run = &run;
  row.student = student;
  return row;
}

std::vector<std::string> flags_of(const GradeRow& row) {
  std::vector<std::string> out;
  for (const auto& f : row.flags) out.push_back(f.en());
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines) {
    if (l.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST(SourceCopies, CommentsAndWhitespaceAreSetAsideAndLiteralsKept) {
  const std::string stripped = stripped_source(kSource);
  EXPECT_EQ(stripped, "#include<cudalab/stream_overlap_pipeline_v1.h>voidpipeline(intn){constchar*s=\"a  //  b\";"
                      "for(inti=0;i<n;++i){work(i);}}");
  const std::string respaced = "#include <cudalab/stream_overlap_pipeline_v1.h>\n/* mine */ void pipeline(int n)\n{\n"
                               "\tconst char* s = \"a  //  b\";\n\tfor (int i = 0; i < n; ++i)  { work(i); }  // done\n}\n";
  EXPECT_EQ(stripped_source(respaced), stripped);
  EXPECT_NE(stripped_source(std::string(kSource) + "int extra;"), stripped);
  EXPECT_NE(stripped_source("const char* s = \"a b\";"), stripped_source("const char* s = \"ab\";"))
      << "a literal's spaces are the program's";
  EXPECT_EQ(stripped_source("int a; /* never closed"), "inta;");
  EXPECT_EQ(stripped_source("char c = '\\''; // x"), "charc='\\'';");
}

TEST(SourceCopies, AClassmatesSourceOrTheShippedSolutionIsFlaggedAndTheStarterIsNot) {
  const ExerciseDescription* e = find_exercise("03");
  ASSERT_NE(e, nullptr);
  ClassPolicy policy;
  policy.shipped[e->id()] = ClassPolicy::ShippedCode{stripped_source(e->solution), stripped_source(e->starter)};
  std::deque<SavedRun> runs;
  runs.push_back(saved(exercise_run(kSource, 1, 1001), "a.json"));
  runs.push_back(saved(exercise_run(std::string("// my own\n") + kSource + "\n\n", 2, 1002), "b.json"));
  runs.push_back(saved(exercise_run("/* tidied */ " + e->solution, 3, 1003), "c.json"));
  runs.push_back(saved(exercise_run(e->starter, 4, 1004), "d.json"));
  runs.push_back(saved(exercise_run(e->starter + "  ", 5, 1005), "e.json"));
  runs.push_back(saved(exercise_run(std::string(kSource) + "int mine;", 6, 1006), "f.json"));
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "bob"), row_of(runs[2], "carol"),
                             row_of(runs[3], "dave"),  row_of(runs[4], "erin"), row_of(runs[5], "frank")};
  check_class_runs(rows, policy);
  EXPECT_TRUE(has(flags_of(rows[0]), "its source is the same as bob-03.json's, handed in by bob, comments and whitespace aside"));
  EXPECT_TRUE(has(flags_of(rows[1]), "its source is the same as alice-03.json's, handed in by alice"));
  EXPECT_TRUE(has(flags_of(rows[2]), "its source is the solution cudalab ships for exercise 03-stream-overlap"));
  EXPECT_FALSE(has(flags_of(rows[3]), "its source")) << "two students still at the starter copied nothing";
  EXPECT_FALSE(has(flags_of(rows[4]), "its source"));
  EXPECT_TRUE(flags_of(rows[5]).empty()) << testing::PrintToString(flags_of(rows[5]));
  EXPECT_FALSE(grade_passes(rows[0]));
  EXPECT_TRUE(grade_passes(rows[5]));
}

TEST(Rerun, TheGradersReRunDecidesTheRowInEveryFormAndInTheFeedback) {
  std::deque<SavedRun> runs{saved(exercise_run(kSource, 1, 1001), "a.json"),
                            saved(exercise_run(std::string(kSource) + "int x;", 2, 1002), "b.json")};
  std::vector<GradeRow> rows{row_of(runs[0], "alice"), row_of(runs[1], "bob")};
  ClassPolicy policy;
  policy.lessons = {3};
  check_class_runs(rows, policy);
  ASSERT_TRUE(grade_passes(rows[0]) && grade_passes(rows[1])) << "both hand-ins say they pass";
  rows[0].rerun = Rerun{"done", "overlap 2.21 ×", {}};
  rows[1].rerun = Rerun{"wrong result", "", {msg("verify {key} failed: {why}", arg("key", "exercise_correct"),
                                                   arg("why", "3 of 8 bytes right"))}};
  EXPECT_TRUE(grade_passes(rows[0]));
  EXPECT_FALSE(grade_passes(rows[1])) << "the re-run, not the hand-in, is what the grade uses";
  const std::string text = render_grades(rows, TableFormat::text, 200);
  EXPECT_NE(text.find("the grader's re-run: done (overlap 2.21 ×)"), std::string::npos) << text;
  EXPECT_NE(text.find("the grader's re-run: verify exercise_correct failed: 3 of 8 bytes right"), std::string::npos) << text;
  const std::string csv = render_grades(rows, TableFormat::csv, 200);
  EXPECT_NE(csv.find(",predictions,rerun,integrity,"), std::string::npos);
  EXPECT_NE(csv.find(",done,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",wrong result,"), std::string::npos) << csv;
  const std::string md = render_grades(rows, TableFormat::md, 200);
  EXPECT_NE(md.find("| re-run |"), std::string::npos) << md;
  const std::string zh = render_grades(rows, TableFormat::text, 200, Lang::zh);
  EXPECT_EQ(zh.find("the grader's re-run"), std::string::npos) << "every word in zh too:\n" << zh;
  const Gradebook book = make_gradebook(rows, policy);
  const std::string bob = render_feedback(book, "bob");
  EXPECT_NE(bob.find("# cudalab feedback for bob"), std::string::npos) << bob;
  EXPECT_NE(bob.find("0 of 1 lessons passed."), std::string::npos) << bob;
  EXPECT_NE(bob.find("✗ did not pass"), std::string::npos) << bob;
  EXPECT_NE(bob.find("- the grader's re-run: verify exercise_correct failed: 3 of 8 bytes right"), std::string::npos) << bob;
  const std::string alice = render_feedback(book, "alice");
  EXPECT_NE(alice.find("✓ passed"), std::string::npos) << alice;
  EXPECT_EQ(alice.find("Why it does not pass"), std::string::npos) << alice;
  const std::string alice_zh = render_feedback(book, "alice", Lang::zh);
  EXPECT_EQ(alice_zh.find("✓ passed"), std::string::npos) << alice_zh;
  EXPECT_EQ(alice_zh.find("feedback for"), std::string::npos) << alice_zh;
  policy.roster = {RosterStudent{"carol", "S3", "Carol C", "carol@example.edu"}};
  const std::string carol = render_feedback(make_gradebook(rows, policy), "carol");
  EXPECT_NE(carol.find("# cudalab feedback for Carol C (carol)"), std::string::npos) << carol;
  EXPECT_NE(carol.find("— no run handed in"), std::string::npos) << carol;
}

// The child of a re-run confines itself before it loads the student's code: a file outside its
// workspace and the system's folders cannot be read or written, and no TCP connection is made.
TEST(Confinement, AConfinedProcessReachesItsWorkspaceAndNothingOfTheGradersOwn) {
  if (landlock_abi() == 0) GTEST_SKIP() << "this kernel offers no Landlock";
  const fs::path base = fs::temp_directory_path() / ("cudalab-confine-" + std::to_string(::getpid()));
  fs::create_directories(base / "workspace");
  fs::create_directories(base / "classmates");
  std::ofstream(base / "classmates" / "bob.cu") << "bob's code";
  std::ofstream(base / "workspace" / "mine.cu") << "mine";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!confine_to((base / "workspace").string()).empty()) ::_exit(10);
    if (::open((base / "workspace" / "mine.cu").c_str(), O_RDONLY) < 0) ::_exit(11);
    if (::open((base / "workspace" / "new.txt").c_str(), O_WRONLY | O_CREAT, 0600) < 0) ::_exit(12);
    if (::open("/etc/passwd", O_RDONLY) < 0) ::_exit(13);
    if (::open((base / "classmates" / "bob.cu").c_str(), O_RDONLY) >= 0 || errno != EACCES) ::_exit(14);
    if (::open((base / "classmates" / "new.txt").c_str(), O_WRONLY | O_CREAT, 0600) >= 0) ::_exit(15);
    // The test process is this user's and dumpable: unconfined, its child could read its memory.
    const std::string parent_memory = "/proc/" + std::to_string(::getppid()) + "/mem";
    if (::open(parent_memory.c_str(), O_RDONLY) >= 0) ::_exit(17);
    if (landlock_abi() >= 4) {
      const int s = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(9);
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0 || errno != EACCES) ::_exit(16);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  fs::remove_all(base);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10 not confined, 11-13 its own or the system's refused, 14-15 a classmate's "
                                       "reached, 16 a TCP connection made, 17 the parent's memory read";
  EXPECT_EQ(readable_when_confined("/usr/share/class"), "/usr");
  EXPECT_EQ(readable_when_confined("/srv/class"), "");
  EXPECT_EQ(readable_when_confined("/usrx"), "");
}
