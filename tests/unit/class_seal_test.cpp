// The class seal (common/report/class_seal.hpp) with test keys: a run sealed with the key held is
// sealed by the class; the forgeries a student can make without the key are not, whatever digest
// they compute again; reading the key file refuses what it must. The setgid install between real
// users is tests/class_grade_test.sh.
#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/core/errors.hpp"
#include "common/grading/class_checks.hpp"
#include "common/report/builder.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/integrity.hpp"
#include "common/report/report_json.hpp"
#include "common/report/saved_run.hpp"
#include "test_support.hpp"

using namespace cudalab;
namespace fs = std::filesystem;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef-the-test-class";
const std::string kOtherKey = "fedcba9876543210fedcba9876543210-another-class";

Report small_run() {
  ReportBuilder b({Param{"streams", "4", true}});
  b.section("s", "s", "").metric(measured("time", "time", "ms", {1.0, 1.1, 1.2}));
  b.verify("results", true, "all match");
  Report r = std::move(b).build();
  r.tool_version = "0.1.0+c1a55c1a55c1";
  r.recorded_at = "2026-11-26T10:00:00Z";
  r.lesson_number = 3;
  r.lesson_slug = "stream-overlap";
  return r;
}

// The run as its file holds it, sealed with the key held now (none: digest only).
nlohmann::json sealed_json() {
  Report r = small_run();
  seal(r);
  return report_to_json(r);
}

ClassSealVerdict verdict_of(const nlohmann::json& raw) { return parse_saved_runs(raw.dump(), "run.json").front().class_seal; }

// What a student's script does to a run it has edited: the digest computed again, as integrity.hpp
// says anyone can.
nlohmann::json redigested(nlohmann::json run) {
  run["digest"] = run_digest(run);
  return run;
}

class ClassSealTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(hold_class_key(kKey)); }
  void TearDown() override { hold_class_key(testing_support::kTestClassKey); }  // every other test's key
};

}  // namespace

TEST_F(ClassSealTest, ARunSealedWithTheHeldKeyIsSealedByTheClass) {
  const nlohmann::json run = sealed_json();
  ASSERT_TRUE(run.contains("class_seal"));
  const std::string seal = run["class_seal"];
  EXPECT_EQ(seal.rfind("hmac-sha256:" + held_class_key_id() + ":", 0), 0u) << seal;
  const ClassSealVerdict v = verdict_of(run);
  EXPECT_EQ(v.state, ClassSeal::sealed);
  EXPECT_EQ(v.describe().en(), "sealed by the class (key " + held_class_key_id() + ")");
  EXPECT_EQ(parse_saved_runs(run.dump(), "run.json").front().integrity.state, Integrity::intact)
      << "the digest covers the class seal too";
}

TEST_F(ClassSealTest, AnEditedRunWithItsDigestComputedAgainIsNotSealed) {
  nlohmann::json run = sealed_json();
  run["sections"][0]["metrics"][0]["samples"][0] = 1.0 * (1 + 1e-12);
  run = redigested(run);
  const SavedRun saved = parse_saved_runs(run.dump(), "run.json").front();
  EXPECT_EQ(saved.integrity.state, Integrity::intact) << "the forger's digest matches";
  EXPECT_EQ(saved.class_seal.state, ClassSeal::broken);
  EXPECT_EQ(saved.class_seal.describe().en(), "not sealed by the class: its seal does not match its contents");
}

TEST_F(ClassSealTest, ASealRemovedOrCopiedFromAnotherRunOrMadeUpIsNotSealed) {
  nlohmann::json stripped = sealed_json();
  stripped.erase("class_seal");
  EXPECT_EQ(verdict_of(redigested(stripped)).state, ClassSeal::none);

  // Another run's genuine seal on this run's contents (bob's seal on alice's run).
  nlohmann::json alice = sealed_json();
  Report bob_run = small_run();
  bob_run.params[0].value = "8";
  seal(bob_run);
  alice["class_seal"] = bob_run.class_seal;
  EXPECT_EQ(verdict_of(redigested(alice)).state, ClassSeal::broken);

  for (const char* made_up : {"", "hmac-sha256:", "hmac-sha256:zz:00", "sha256:0000"}) {
    nlohmann::json run = sealed_json();
    run["class_seal"] = made_up;
    EXPECT_EQ(verdict_of(redigested(run)).state, ClassSeal::broken) << made_up;
  }
  nlohmann::json typed = sealed_json();  // a seal that is no string: the run does not load at all
  typed["class_seal"] = 42;
  try {
    verdict_of(redigested(typed));
    ADD_FAILURE() << "a run whose class_seal is a number loaded";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("class_seal: expected a string"), std::string::npos) << e.what();
  }
}

TEST_F(ClassSealTest, ASealOfAnotherKeyOrUnderNoKeyIsNotSealed) {
  ASSERT_TRUE(hold_class_key(kOtherKey));
  const std::string other_id = held_class_key_id();
  const nlohmann::json theirs = sealed_json();  // sealed with another class's key (a build of one's own)
  ASSERT_TRUE(hold_class_key(kKey));
  const ClassSealVerdict v = verdict_of(theirs);
  EXPECT_EQ(v.state, ClassSeal::other_key);
  EXPECT_EQ(v.key_id, other_id);
  forget_class_key();
  EXPECT_EQ(verdict_of(theirs).state, ClassSeal::unknown) << "no key held: it cannot tell, and never says sealed";
  EXPECT_FALSE(sealed_json().contains("class_seal")) << "no key held: no seal made";
}

TEST_F(ClassSealTest, KeysOutsideTheirLengthsAreNotHeld) {
  EXPECT_FALSE(hold_class_key(std::string(kMinClassKeyBytes - 1, 'k')));
  EXPECT_EQ(held_class_key_id(), "");
  EXPECT_FALSE(hold_class_key(std::string(kMaxClassKeyBytes + 1, 'k')));
  EXPECT_TRUE(hold_class_key(std::string(kMinClassKeyBytes, 'k')));
  EXPECT_EQ(held_class_key_id().size(), 16u);
  EXPECT_EQ(held_class_key_id().find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST_F(ClassSealTest, GradeFlagsEveryRunTheClassDidNotSeal) {
  const SavedRun honest = parse_saved_runs(sealed_json().dump(), "a.json").front();
  nlohmann::json edited = sealed_json();
  edited["params"][0]["value"] = "8";
  const SavedRun forged = parse_saved_runs(redigested(edited).dump(), "b.json").front();
  std::vector<GradeRow> rows(2);
  rows[0].file = "a.json", rows[0].run = &honest, rows[0].student = "alice";
  rows[1].file = "b.json", rows[1].run = &forged, rows[1].student = "bob";
  ClassPolicy policy;
  check_class_runs(rows, policy);
  // Neither run says who made it (small_run has no provenance): only the seal's flag tells them apart.
  const auto seal_flags = [](const GradeRow& row) {
    std::vector<std::string> found;
    for (const auto& f : row.flags) {
      if (f.en().find("sealed by the class") != std::string::npos) found.push_back(f.en());
    }
    return found;
  };
  EXPECT_TRUE(seal_flags(rows[0]).empty()) << seal_flags(rows[0]).front();
  EXPECT_EQ(seal_flags(rows[1]), std::vector<std::string>{"not sealed by the class: its seal does not match its contents"});
  EXPECT_FALSE(grade_passes(rows[1]));
  // A class that grades without seals says so (cli/graders.cpp) and flags none.
  for (auto& row : rows) row.flags.clear();
  policy.class_seal = false;
  check_class_runs(rows, policy);
  EXPECT_TRUE(seal_flags(rows[1]).empty());
}

// take_class_key_at_start in a child of its own (it makes the process non-dumpable): the key file
// named by $CUDALAB_CLASS_KEY, which an unprivileged process may name, is held only when it is a
// regular file of the right size that not every user can read.
TEST(ClassKeyFile, TheKeyFileIsHeldOnlyWhenItIsSafe) {
  const fs::path dir = fs::temp_directory_path() / ("cudalab-class-key-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto held_from = [&](const std::string& name, const std::string& text, mode_t mode) {
    const fs::path file = dir / name;
    std::ofstream(file) << text;
    ::chmod(file.c_str(), mode);
    ::setenv("CUDALAB_CLASS_KEY", file.c_str(), 1);
    // Holding the key, the process is no longer dumpable: its user cannot ptrace it or read its memory.
    const bool held = take_class_key_at_start(true).empty() && !held_class_key_id().empty() &&
                      ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0;
    const std::string problem = class_key_problem().en();
    ::unsetenv("CUDALAB_CLASS_KEY");
    return held ? std::string("held") : problem;
  };
  EXPECT_EXIT(std::exit(held_from("ok", kKey + "\n", 0600) == "held" ? 0 : 1), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(held_from("world", kKey, 0644).find("can be read by every user") != std::string::npos ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(held_from("short", "too short", 0600).find("not a regular file of 32 to 1024 bytes") != std::string::npos ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(std::exit(held_from("big", std::string(5000, 'k'), 0600).find("32 to 1024 bytes") != std::string::npos ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        ::setenv("CUDALAB_CLASS_KEY", (dir / "missing").c_str(), 1);
        const bool ok = take_class_key_at_start(true).empty() && held_class_key_id().empty() &&
                        class_key_problem().en().find("there is no class key at") != std::string::npos;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  fs::remove_all(dir);
}
