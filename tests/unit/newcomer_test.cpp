// What a new user hit without a GPU (issue 33), each case as it was met: presets that were too
// lenient, a CLI that refused or did the unexpected, output that said nothing or was too wide.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/live.hpp"
#include "cli/output.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/core/version.hpp"
#include "common/report/predict.hpp"
#include "fake_lesson.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::hide_gpus;
using testing_support::one_line;
using testing_support::slug_of;
using Outcome = testing_support::CliOutcome;

namespace {

Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

// A file of this test's own (CTest runs the tests of this binary in parallel processes).
std::string file_with(const std::string& suffix, const std::string& text) {
  const std::string path =
      testing::TempDir() + testing::UnitTest::GetInstance()->current_test_info()->name() + suffix;
  std::ofstream(path) << text;
  return path;
}

Outcome with_preset(const std::string& toml, std::vector<std::string> args) {
  args.insert(args.begin(), {"--config", file_with(".toml", toml)});
  return run(std::move(args));
}

}  // namespace

// ── presets as strict as docs/presets.md says ────────────────────────────────────

TEST(StrictPresets, AnUnknownSectionIsAnErrorWithDidYouMean) {
  hide_gpus();
  Outcome o = with_preset("[priorty]\nwaves = 4\n", {"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find(":1: [priorty] is not a section"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("(did you mean [" + slug_of(4) + "]?)"), std::string::npos) << o.err;
  o = with_preset("[04]\nwaves = 4\n", {"04"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("(did you mean [" + slug_of(4) + "]?)"), std::string::npos) << o.err;
  o = with_preset("# graders\n[compare]\nformat = \"csv\"\n", {"show", "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find(":2: [compare] is not a section; a section is [all] (every lesson), [show], [grade] (the "
                       "class) or a lesson's name"),
            std::string::npos)
      << o.err;
}

TEST(StrictPresets, WrongTypesAreErrors) {
  hide_gpus();
  const std::string section = "[" + slug_of(3) + "]\n";
  Outcome o = with_preset(section + "streams = \"8\"\n", {"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("streams takes a whole number without quotes (streams = 8), not \"8\""), std::string::npos) << o.err;
  o = with_preset(section + "repeat = \"20\"\n", {"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("repeat takes a whole number without quotes (repeat = 8), not \"20\""), std::string::npos) << o.err;
  o = with_preset(section + "memory = 1\n", {"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("memory takes text in quotes (memory = \"both\"), not 1"), std::string::npos) << o.err;
  o = with_preset(section + "size = 4096\ndevice = 0\n", {"03", "--print-config"});
  EXPECT_EQ(o.code, 0) << "a size in bytes and a device number are numbers: " << o.err;
}

TEST(StrictPresets, PrintConfigIsNoPresetKey) {
  const Outcome o = with_preset("[" + slug_of(3) + "]\nprint-config = true\n", {"03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("print-config is not a preset key: type --print-config on the command line"), std::string::npos)
      << o.err;
  EXPECT_EQ(with_preset("[all]\nprint-config = true\n", {"all"}).code, to_int(ExitCode::usage));
}

// Under `all --print-config`, lesson 03's block left out the common flags its own section set.
TEST(StrictPresets, AllPrintConfigShowsEveryKeyInForceForEachLesson) {
  setenv("COLUMNS", "250", 1);
  const Outcome o = with_preset("[" + slug_of(3) + "]\nstreams = 8\nstrict = true\nrepeat = 7\nlang = \"zh\"\n"
                                "timeline = true\nformat = \"json\"\n",
                                {"all", "--print-config"});
  unsetenv("COLUMNS");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::size_t block = o.out.find("# lesson 03 " + slug_of(3));
  ASSERT_NE(block, std::string::npos) << o.out;
  const std::string lesson03 = o.out.substr(block, o.out.find("# lesson 04") - block);
  for (const std::string key : {"streams          = 8", "strict           = true", "repeat           = 7",
                                "lang             = zh", "timeline         = true"}) {
    EXPECT_NE(lesson03.find(key + " "), std::string::npos) << key << "\n" << lesson03;
  }
  EXPECT_NE(lesson03.find("format           = json"), std::string::npos) << lesson03;
  EXPECT_NE(lesson03.find("(only when it runs alone)"), std::string::npos) << lesson03;
  const std::size_t at04 = o.out.find("# lesson 04");
  const std::string lesson04 = o.out.substr(at04, o.out.find("# lesson 05") - at04);
  EXPECT_EQ(lesson04.find("strict"), std::string::npos) << "03's section is 03's alone:\n" << lesson04;
}

// `all --print-config` listed a refused section yet exited 0 (issue 50 item 6).
TEST(StrictPresets, AllPrintConfigExitsTwoWhenItListsARefusedSection) {
  hide_gpus();
  const Outcome o = with_preset("[" + slug_of(3) + "]\nstreams = 0\n", {"all", "--print-config"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << o.out << o.err;
  EXPECT_NE(o.out.find("refused"), std::string::npos) << o.out;
  EXPECT_EQ(with_preset("[" + slug_of(3) + "]\nstreams = 8\n", {"all", "--print-config"}).code, 0);
}

// A value someone typed is data, spaces and all: a file named like a catalogued phrase stays as
// typed under zh (whether it had a space once decided it was words, issue 43 item 5).
TEST(StrictPresets, PrintConfigShowsAGivenValueAsTypedInEveryLanguage) {
  hide_gpus();
  setenv("COLUMNS", "250", 1);
  const Outcome o = with_preset("[all]\njson = \"all (up to 8)\"\n", {"03", "--print-config", "--lang", "zh"});
  unsetenv("COLUMNS");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("json             = all (up to 8)"), std::string::npos) << o.out;
}

// No single place set a flag for every lesson: [all] did not apply to `cudalab 03`.
TEST(StrictPresets, AllSectionAppliesToEveryLessonAndTheLessonsOwnSectionWins) {
  setenv("COLUMNS", "250", 1);
  Outcome o = with_preset("[all]\nlang = \"zh\"\nrepeat = 9\n[" + slug_of(3) + "]\nrepeat = 5\n", {"03", "--print-config"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("lang             = zh"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("repeat           = 5"), std::string::npos) << o.out;
  o = with_preset("[all]\nlang = \"zh\"\n", {"03", "--print-config", "--lang", "en"});
  EXPECT_NE(o.out.find("lang             = en          # flag"), std::string::npos) << "the command line wins\n" << o.out;
  unsetenv("COLUMNS");
  o = with_preset("[all]\nstreams = 8\n", {"03", "--print-config"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << "a lesson's own flag is not every lesson's";
}

TEST(StrictPresets, SyntaxErrorsAreInOurWordsWithLineAndColumnInBothLanguages) {
  const std::string section = "[" + slug_of(3) + "]\n";
  Outcome o = with_preset("# a class\n" + section + "size = 64MiB\n", {"03", "--print-config"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find(".toml:3:10 [" + slug_of(3) + "]: a value TOML cannot read: text goes in quotes"), std::string::npos)
      << o.err;
  o = with_preset(section + "streams 8\n", {"03", "--print-config"});
  EXPECT_NE(o.err.find(":2:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("a key needs = and a value: streams = 8"), std::string::npos) << o.err;
  o = with_preset(section + "streams = 8\nstreams = 4\n", {"03", "--print-config"});
  EXPECT_NE(o.err.find("this key or [section] is given twice"), std::string::npos) << o.err;
  for (const auto& text : {section + "size = 64MiB\n", section + "streams 8\n", section + "streams = 8\nstreams = 4\n"}) {
    o = with_preset(text, {"03", "--print-config", "--lang", "zh"});
    EXPECT_EQ(o.code, to_int(ExitCode::usage));
    EXPECT_NE(o.err.find("cudalab：错误：--config "), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("TOML cannot"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("given twice"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("needs ="), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("parsing"), std::string::npos) << "no toml++ words: " << o.err;
  }
}

// ── the command line ────────────────────────────────────────────────────────

TEST(NewcomerCli, HelpAloneIsTheWholeHelp) {
  const Outcome help = run({"help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_EQ(help.out, run({"--help"}).out);
  EXPECT_NE(help.out.find("Commands:"), std::string::npos) << help.out;
}

TEST(NewcomerCli, EveryLessonTakesVersion) {
  for (const auto& lesson : course()) {
    const Outcome o = run({lesson.slug, "--version"});
    EXPECT_EQ(o.code, 0) << lesson.slug << ": " << o.err;
    EXPECT_EQ(o.out, std::string("cudalab ") + kToolVersion + "\n") << lesson.slug;
  }
  EXPECT_EQ(run({"show", "03", "--version"}).code, 0);
}

// --predict asked its questions without a GPU, then exited 77 and lost the answers. At a terminal
// the GPU is still looked for first; an answers file is read before it (issue 50 item 3: a bad
// file is a usage error on any machine), and a good one then meets the GPU check.
TEST(NewcomerCli, PredictChecksTheGpuBeforeAsking) {
  hide_gpus();
  const Outcome bad = run({"03", "--predict", "--answers", file_with(".answers", "not even a number\n")});
  EXPECT_EQ(bad.code, to_int(ExitCode::usage)) << bad.err;
  const std::string answers =
      file_with(".good.answers", "speedup.depth_first = 2\nlecture.total = 3\nlecture.overlap = 1.5\n");
  const Outcome o = run({"03", "--predict", "--answers", answers});
  EXPECT_EQ(o.code, to_int(ExitCode::waived)) << "a good file, then the GPU: " << o.err;
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find("`cudalab show 03 --predict` asks the same questions"), std::string::npos) << o.err;
}

TEST(NewcomerCli, ShowPredictAsksThenShowsTheRecordedRun) {
  const std::string answers = file_with(".answers", "3\n4\n1.5\n");
  const Outcome o = run({"show", "03", "--predict", "--answers", answers, "--color", "never"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("you said 3"), std::string::npos) << o.out;
  EXPECT_EQ(run({"show", "01", "--predict", "--answers", answers}).code, to_int(ExitCode::usage))
      << "lesson 01 asks nothing";
}

TEST(NewcomerCli, PredictIsOfferedOnlyWhereALessonAsks) {
  for (const auto& lesson : course()) {
    const Outcome help = run({lesson.slug, "--help"});
    EXPECT_EQ(help.out.find("--predict") != std::string::npos, asks_predictions(lesson)) << lesson.slug;
  }
  EXPECT_EQ(run({"01", "--predict"}).code, to_int(ExitCode::usage));
}

TEST(NewcomerCli, AnUnknownAnswersKeyListsTheKeys) {
  hide_gpus();
  const std::string answers = file_with(".answers", "nope = 3\n");
  const Outcome o = run({"show", "03", "--predict", "--answers", answers});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("this lesson asks nothing about 'nope'; it asks about "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("speedup"), std::string::npos) << o.err;
}

TEST(NewcomerCli, ASizeTooLargeIsOutOfRangeNotNotASize) {
  for (const char* size : {"2TiB", "3PB", "99999999999999999999GiB"}) {
    const Outcome o = run({"03", "--size", size});
    EXPECT_EQ(o.code, to_int(ExitCode::usage)) << size;
    EXPECT_NE(o.err.find(std::string(size) + " is out of range; allowed"), std::string::npos) << o.err;
  }
  EXPECT_EQ(parse_size("2TiB"), 2ull << 40);
}

TEST(NewcomerCli, HelpSaysWhatTraceWritesAndEachDefaultOnce) {
  setenv("COLUMNS", "200", 1);
  const Outcome o = run({"03", "--help"});
  unsetenv("COLUMNS");
  EXPECT_EQ(o.out.find("FILE.json"), std::string::npos) << o.out;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("--repeat") == std::string::npos) continue;
    EXPECT_EQ(line.find("default"), line.rfind("default")) << line;
  }
}

TEST(NewcomerCli, TwoOutputFormsAtOnceAreRefused) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"show", "03", "--portable", "--format", "json"},
                                               {"show", "03", "--stable", "--format", "json"},
                                               {"03", "--stable", "--json", "-"}}) {
    const Outcome o = run(args);
    EXPECT_EQ(o.code, to_int(ExitCode::usage)) << args[2];
    EXPECT_NE(o.err.find("are two output forms; choose one"), std::string::npos) << o.err;
  }
}

// /proc/version looks like a regular file, and root may open it for writing: the run was
// measured, then could not be saved (and without a GPU the waiver hid the bad path).
TEST(NewcomerCli, PathsOfTheKernelAreRefusedBeforeTheGpu) {
  hide_gpus();
  Outcome o = run({"03", "--json", "/proc/version"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage)) << o.err;
  EXPECT_NE(o.err.find("a file of the kernel (procfs)"), std::string::npos) << o.err;
  EXPECT_EQ(run({"03", "--svg", "/proc/sys"}).code, to_int(ExitCode::usage));
}

// CLI11's own words for a missing positional: "RUN is required", "RUNS: At least 2 required but
// received 1", which neither said which command nor what it takes.
TEST(NewcomerCli, AMissingPositionalNamesTheCommandAndWhatItTakes) {
  Outcome o = run({"compare", "03"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_NE(o.err.find("cudalab: error: compare: 2 or more RUNS needed, 1 given; the baseline (a file, or a lesson"),
            std::string::npos)
      << o.err;
  o = run({"show"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("show: no RUN given; a run saved with --json, or a lesson (03"), std::string::npos) << o.err;
  o = run({"completion"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_NE(o.err.find("completion: no SHELL (bash|zsh|fish) given; the shell"), std::string::npos) << o.err;
  o = run({"compare", "03", "--lang", "zh"});
  EXPECT_NE(o.err.find("compare：至少需要 2 个 RUNS，只给了 1 个；先给基准"), std::string::npos) << o.err;
  o = run({"submit", "--lang", "zh"});
  EXPECT_NE(o.err.find("submit：缺少 RUN；用 --json 保存的运行"), std::string::npos) << o.err;
}

// ── errors under zh ─────────────────────────────────────────────────────────

// Under zh, a flag's check and the file errors stayed English after the translated "错误：".
TEST(NewcomerZhErrors, AFlagsCheckAndFileErrorsAreInChinese) {
  hide_gpus();
  Outcome o = run({"03", "--lang", "zh", "--json", "/nonexistent-cudalab-dir/run.json"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_TRUE(one_line(o.err)) << o.err;
  EXPECT_EQ(o.err, "cudalab：错误：--json：无法写入 '/nonexistent-cudalab-dir/run.json'：没有那个文件或目录\n");
  o = run({"--config", "/nonexistent-cudalab.toml", "03", "--lang", "zh"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_EQ(o.err, "cudalab：错误：--config：无法打开 '/nonexistent-cudalab.toml'：没有那个文件或目录\n");
  o = run({"--config", testing::TempDir(), "03", "--lang", "zh"});
  EXPECT_NE(o.err.find("是目录，不是预设文件（TOML）"), std::string::npos) << o.err;
  o = run({"03", "--predict", "--answers", "/nonexistent-cudalab.answers", "--lang", "zh"});
  EXPECT_EQ(o.err, "cudalab：错误：--answers：无法打开 '/nonexistent-cudalab.answers'：没有那个文件或目录\n");
  o = run({"grade", "/nonexistent-cudalab-dir", "--lang", "zh"});
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_EQ(o.err, "cudalab：错误：grade：'/nonexistent-cudalab-dir' 不是目录\n");
  o = run({"03", "--svg", "/nonexistent-cudalab-dir/a/b", "--lang", "zh"});
  EXPECT_EQ(o.err, "cudalab：错误：--svg：无法创建 '/nonexistent-cudalab-dir/a/b'：没有那个文件或目录\n");
}

// `--lang fr` under a Chinese locale: the language asked for is not one, so the locale's speaks.
TEST(NewcomerZhErrors, ALanguageNotAllowedIsSaidInTheLocalesLanguage) {
  setenv("LC_ALL", "zh_CN.UTF-8", 1);
  const Outcome o = run({"03", "--lang", "fr"});
  unsetenv("LC_ALL");
  EXPECT_EQ(o.code, to_int(ExitCode::usage));
  EXPECT_EQ(o.err, "cudalab：错误：--lang：不能用“fr”；可选值：zh, en\n");
  setenv("LC_ALL", "C", 1);
  const std::string english = run({"03", "--lang", "fr"}).err;
  unsetenv("LC_ALL");
  EXPECT_EQ(english, "cudalab: error: --lang: 'fr' is not allowed; use one of zh, en\n")
      << "English stays as it was";
}

// The questions of --predict came in zh, the prompts around them in English.
TEST(NewcomerZhErrors, PredictsPromptsAreInTheStudentsLanguage) {
  const std::vector<Question> questions = {{"speedup", "x", "快多少？", {1, 2, 3}}};
  std::istringstream in("lots\nb\n");
  std::ostringstream out;
  const auto guesses = ask(questions, in, out, Lang::zh);
  ASSERT_EQ(guesses.size(), 1u);
  EXPECT_DOUBLE_EQ(guesses[0].answer, 2);
  EXPECT_NE(out.str().find("  你的答案（x）： "), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("  请输入一个数，或一个字母\n"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("your answer"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("please"), std::string::npos) << out.str();
}

// `compare --format md` and `grade --format md` were wholly English under zh.
TEST(NewcomerZhErrors, MarkdownOfCompareAndGradeIsInTheStudentsLanguage) {
  Outcome o = run({"compare", "03", "03", "--format", "md", "--lang", "zh"});
  EXPECT_EQ(o.code, 0) << o.err;
  for (const std::string& zh : {"### 第 03 课 " + slug_of(3) + "：B 与 A 对比", std::string("| 运行 | 文件 |"),
                               std::string("| | 指标 | 单位 | A | B | B/A | 容差 | 结论 |"),
                               std::string("| 检查 | 种类 | 主要 | A | B |"), std::string("**结论：** B 与 A 相符")}) {
    EXPECT_NE(o.out.find(zh), std::string::npos) << zh << "\n" << o.out;
  }
  for (const char* english : {"against A", "| run |", "metric", "Verdict", "| pass |"}) {
    EXPECT_EQ(o.out.find(english), std::string::npos) << english << "\n" << o.out;
  }
  EXPECT_NE(run({"compare", "03", "03", "--format", "md"}).out.find("**Verdict:** B holds against A"), std::string::npos);

  const std::string dir = testing::TempDir() + "zh_grade_md";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/broken.json") << "not a run";
  o = run({"grade", dir, "--format", "md", "--lang", "zh"});
  EXPECT_NE(o.out.find("| 文件 | 学生 | 节点 | 课 | 设备 |"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(o.out.find("| file |"), std::string::npos) << o.out;
}

// ── output ──────────────────────────────────────────────────────────────────

TEST(NewcomerOutput, SvgSaysWhyItWroteNothing) {
  Report report;
  report.lesson_number = 2;
  report.lesson_slug = slug_of(2);
  OutputPlan plan;
  plan.svg_dir = testing::TempDir() + "svg_none";
  plan.form = OutputPlan::Form::stable;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  emit_report(report, plan);
  const std::string err = testing::internal::GetCapturedStderr();
  testing::internal::GetCapturedStdout();
  EXPECT_TRUE(one_line(err)) << err;
  EXPECT_NE(err.find("no SVG file was written"), std::string::npos) << err;
  EXPECT_NE(err.find("a plot needs two or more points"), std::string::npos) << err;
}

TEST(NewcomerOutput, LiveComparisonFitsTheTerminal) {
  Report a = testing_support::fake_runner()(testing_support::fake_live_invocation({}).lesson(), Invocation{});
  Invocation eight = testing_support::fake_live_invocation({"--streams", "8"});
  Report b = testing_support::fake_runner()(eight.lesson(), eight);
  for (std::size_t width : {60u, 80u, 120u}) {
    for (const auto& line : compare_live_runs(b, a, a, width)) {
      EXPECT_LE(display_width(line), width) << width << ": [" << line << "]";
    }
  }
}
