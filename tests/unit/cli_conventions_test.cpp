// Presets, help, completion and error messages through the whole CLI, without a GPU.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::hide_gpus;
using testing_support::one_line;
using testing_support::reference_run_name;
using testing_support::slug_of;
using Outcome = testing_support::CliOutcome;

namespace {
Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

// One file per test: CTest runs the tests of this binary in parallel processes.
std::string preset(const std::string& text) {
  const std::string path =
      testing::TempDir() + testing::UnitTest::GetInstance()->current_test_info()->name() + ".class.toml";
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST(Presets, ABadValueNamesTheFileTheLineAndTheSection) {
  hide_gpus();
  const std::string path = preset("# class\n[" + slug_of(3) + "]\nstreams = 0\n");
  const Outcome o = run({"--config", path, "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find(path + ":3 [" + slug_of(3) + "]: --streams: 0 is out of range; allowed 1 to 64"), std::string::npos)
      << o.err;
}

// A preset is checked whole when it is read (issue 50 item 6): a bad value in 03's section is
// one line naming the file, the line and the section, whichever lesson runs, and for show.
TEST(Presets, ABadSectionIsRefusedWhicheverLessonRuns) {
  hide_gpus();
  const std::string path = preset("[" + slug_of(3) + "]\nstreams = 0\n[" + slug_of(1) + "]\n");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--config", path, "01"},
                                               std::vector<std::string>{"--config", path, "02"},
                                               std::vector<std::string>{"show", "01", "--config", path}}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, to_int(ExitCode::usage)) << args[2] << ": " << o.err;
    EXPECT_NE(o.err.find(":2 [" + slug_of(3) + "]: --streams: 0 is out of range"), std::string::npos) << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
  EXPECT_EQ(run({"--config", preset("[" + slug_of(3) + "]\nstreams = 8\n"), "01"}).code, to_int(ExitCode::waived));
}

TEST(Presets, ValidTomlIsAcceptedAndTheCommandLineWins) {
  hide_gpus();
  const std::string path =
      preset("\xEF\xBB\xBF[ " + slug_of(3) + " ]   # lesson 03\nstreams = 8 # more\nsize = \"16MiB\"\nstrict = true\n");
  setenv("COLUMNS", "200", 1);  // the temporary path is long: at 80 columns its comment folds (Width tests)
  const Outcome o = run({"03", "--config", path, "--streams", "4", "--print-config"});
  unsetenv("COLUMNS");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("streams          = 4           # flag"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("size             = 16MiB       # preset " + path + ":3 [" + slug_of(3) + "]"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("strict           = true        # preset"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("# default"), std::string::npos) << o.out;
  EXPECT_EQ(o.err.find("At Most"), std::string::npos) << o.err;
}

TEST(Presets, WrongTypesAndUnknownKeysAreRefusedWithTheRule) {
  hide_gpus();
  const std::string section = "[" + slug_of(3) + "]\n";
  Outcome o = run({"--config", preset(section + "strict = 7\n"), "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("strict is a switch: write strict = true or strict = false"), std::string::npos) << o.err;
  o = run({"--config", preset(section + "strams = 8\n"), "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("strams is not a flag of " + slug_of(3) + " (did you mean streams?)"), std::string::npos) << o.err;
  o = run({"--config", preset("# a preset\n" + section + "size = many\n"), "03"});
  EXPECT_NE(o.err.find(":3:8 [" + slug_of(3) + "]: a value TOML cannot read: text goes in quotes"), std::string::npos)
      << o.err;
  EXPECT_EQ(o.err.find("INI"), std::string::npos) << o.err;
}

TEST(Presets, TheShowSectionAppliesToShow) {
  const std::string ref = std::string(CUDALAB_SOURCE_DIR) + "/course-notes/runs/" + reference_run_name(1) + ".json";
  const Outcome o = run({"--config", preset("[show]\nlang = \"zh\"\ncolor = \"never\"\n"), "show", ref});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("复制引擎"), std::string::npos) << "the notes are in Chinese";
}

// [all] reaches show too (issue 50): its flags of show apply, [show] wins over them, and the rest
// of [all] is still checked.
TEST(Presets, TheAllSectionReachesShowAndTheShowSectionWins) {
  const std::string ref = std::string(CUDALAB_SOURCE_DIR) + "/course-notes/runs/" + reference_run_name(1) + ".json";
  Outcome o = run({"--config", preset("[all]\nlang = \"zh\"\nrepeat = 20\n"), "show", ref});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("复制引擎"), std::string::npos) << "[all] lang = zh reaches show";
  o = run({"--config", preset("[all]\nlang = \"zh\"\n[show]\nlang = \"en\"\n"), "show", ref});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.find("复制引擎"), std::string::npos) << "[show] wins over [all]";
  o = run({"--config", preset("[all]\nrepeat = 0\n"), "show", ref});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << o.out;
  EXPECT_NE(o.err.find("[all]"), std::string::npos) << o.err;
}

TEST(Conventions, HelpForALessonByNumber) {
  const Outcome o = run({"help", "03"});
  EXPECT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("--streams"), std::string::npos) << o.out;
  EXPECT_EQ(run({"help", "nope"}).code, to_int(ExitCode::usage));
}

TEST(Conventions, DidYouMeanForLessonsAndFlags) {
  std::string typo = slug_of(3);  // lesson 03's name with its last two letters swapped
  std::swap(typo[typo.size() - 2], typo[typo.size() - 1]);
  Outcome o = run({typo});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("did you mean " + slug_of(3) + "?"), std::string::npos) << o.err;
  o = run({"03", "--strams", "8"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find("did you mean --streams?"), std::string::npos) << o.err;
}

TEST(Conventions, AGlobalFlagBeforeTheLessonSaysWhereItGoesInTheOrderTyped) {
  const Outcome o = run({"--lang", "zh", "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find("cudalab 03 --lang"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("zh --lang"), std::string::npos) << o.err;
}

TEST(Conventions, CompletionScriptsLoadInBash) {
  const Outcome o = run({"completion", "bash"});
  ASSERT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("--streams"), std::string::npos);
  const std::string path = testing::TempDir() + "cudalab.bash";
  std::ofstream(path) << o.out;
  const std::string cmd = "bash -c 'source " + path + " && complete -p cudalab' >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(run({"completion", "fish"}).code, 0);
  EXPECT_EQ(run({"completion", "tcsh"}).code, to_int(ExitCode::usage));
}

TEST(Conventions, ListAndHelpFitEightyColumns) {
  setenv("COLUMNS", "80", 1);
  std::vector<std::vector<std::string>> commands = {{"list"}, {"--help"}, {"all", "--help"}, {"show", "--help"}};
  for (const auto& entry : course()) {
    commands.push_back({entry.slug, "--help"});
  }
  for (const auto& args : commands) {
    const Outcome o = run(args);
    std::istringstream lines(o.out);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(display_width(line), 80u) << args[0] << ": [" << line << "]";
    }
  }
}
