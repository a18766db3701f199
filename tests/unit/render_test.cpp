#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "common/core/errors.hpp"
#include "common/report/builder.hpp"
#include "common/report/integrity.hpp"
#include "common/report/render.hpp"
#include "common/report/render_summary.hpp"
#include "common/report/report_json.hpp"
#include "common/report/digest.hpp"
#include "common/core/text_format.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::expect_check;
using testing_support::slug_of;
using testing_support::verify_check;

namespace {

Report sample_report() {
  Report r;
  r.tool_version = "0.1.0";
  r.recorded_at = "2026-11-21T19:00:00Z";
  r.lesson_number = 1;
  r.lesson_slug = slug_of(1);
  r.lesson_title = "the GPU as a factory of engines";
  r.params = {{"size", "64MiB", true}, {"kernel-iters", "400", false}};
  r.devices = {{0, "Test GPU", 9, 0, 132, 3}};
  r.warnings = {"CUDA_LAUNCH_BLOCKING=1 is set: no overlap"};
  Section s;
  s.key = "timing";
  s.title = "timing";
  s.notes_key = "engines";
  s.art = {ArtPiece{true, {}, {}}};  // an empty box: "┌──┐", "└──┘"
  s.facts = {{"copy_engines", "copy engines", "3", "lessons 02, 03", true},
             {"clock", "clock", "1980 MHz", "", false}};
  Metric m;
  m.key = "seq";
  m.label = "sequential";
  m.unit = "ms";
  m.samples = {2.61, 2.65, 2.618};
  m.predicted = 2.7;
  m.note = "one stream";
  s.metrics = {m, derived("speedup", "speed-up", "x", 1.56)};
  s.tables = {Table{"t", {"size", "median"}, {{Cell{"64MiB", ""}, Cell{"", "seq"}}}}};
  r.sections = {s};
  r.checks = {verify_check("results", true, "results match"), expect_check("faster", false, "overlap faster", "why not")};
  r.try_next = {{"cudalab 03 --memory pageable", "where did the overlap go?"}};
  r.headline = "1.56x";
  return r;
}

TextStyle plain() {
  TextStyle style;
  style.color = false;
  style.width = 80;
  style.lang = Lang::en;
  return style;
}

}  // namespace

TEST(Render, JsonRoundTripRendersIdentically) {
  const Report live = sample_report();
  const nlohmann::json saved = report_to_json(live);
  const Report loaded = report_from_json(nlohmann::json::parse(saved.dump()));
  EXPECT_EQ(render_text(loaded, plain()), render_text(live, plain()));
  EXPECT_EQ(render_stable(loaded), render_stable(live));
  EXPECT_EQ(report_to_json(loaded), saved);
}

TEST(Render, JsonKeepsEverySampleWithItsUnit) {
  const nlohmann::json j = report_to_json(sample_report());
  EXPECT_EQ(j["schema"], "cudalab-run/2");
  const auto& m = j["sections"][0]["metrics"][0];
  EXPECT_EQ(m["unit"], "ms");
  EXPECT_EQ(m["samples"].size(), 3u);
  EXPECT_DOUBLE_EQ(m["median"].get<double>(), 2.618);
  EXPECT_DOUBLE_EQ(m["predicted"].get<double>(), 2.7);
}

TEST(Render, JsonThatIsNotARunIsRejected) {
  EXPECT_THROW(report_from_json(nlohmann::json{{"schema", "other"}}), UsageError);
  nlohmann::json broken = report_to_json(sample_report());
  broken.erase("sections");
  EXPECT_THROW(report_from_json(broken), UsageError);
}

TEST(Render, StableFormHasNoTimingsNoDeviceNoDate) {
  const std::string stable = render_stable(sample_report());
  EXPECT_EQ(stable, "lesson 01 " + slug_of(1) +
                        "\n"
                        "param size=64MiB\n"
                        "param kernel-iters=(device-dependent)\n"
                        "fact timing.copy_engines=3\n"
                        "environment clean\n"
                        "verify results pass\n"
                        "expect faster FAIL\n");
}

TEST(Render, TextShowsHeaderMetricsChecksAndNextSteps) {
  const std::string text = render_text(sample_report(), plain());
  EXPECT_NE(text.find("cudalab 01 · " + slug_of(1) + " — the GPU as a factory of engines"), std::string::npos);
  EXPECT_NE(text.find("device 0  Test GPU · sm_90 · 132 SMs · 3 copy engines"), std::string::npos);
  EXPECT_NE(text.find("params    size=64MiB kernel-iters=400"), std::string::npos);
  EXPECT_NE(text.find("2.618 ms"), std::string::npos);
  EXPECT_NE(text.find("predicted 2.700 ms"), std::string::npos);
  EXPECT_NE(text.find("✓ verify  results match"), std::string::npos);
  EXPECT_NE(text.find("✗ expect  overlap faster"), std::string::npos);
  EXPECT_NE(text.find("why not"), std::string::npos);
  EXPECT_NE(text.find("try next\n  cudalab 03 --memory pageable"), std::string::npos);
  EXPECT_NE(text.find("warning   CUDA_LAUNCH_BLOCKING=1"), std::string::npos);
  EXPECT_EQ(text.find("\x1b["), std::string::npos) << "no colour codes without colour";
  TextStyle colored = plain();
  colored.color = true;
  EXPECT_NE(render_text(sample_report(), colored).find("\x1b["), std::string::npos);
}

TEST(Render, NotesComeFromTheChosenLanguage) {
  TextStyle zh = plain();
  zh.lang = Lang::zh;
  const std::string en_text = render_text(sample_report(), plain());
  const std::string zh_text = render_text(sample_report(), zh);
  EXPECT_NE(en_text.find("copy engines"), std::string::npos);
  EXPECT_NE(zh_text.find("复制引擎"), std::string::npos);
  EXPECT_EQ(en_text.find("have no section"), std::string::npos);
  EXPECT_EQ(zh_text.find("have no section"), std::string::npos);
}

TEST(Render, ProseWrapsToTheTerminalWidth) {
  Report r = sample_report();
  r.params.clear();
  for (auto& section : r.sections) {
    section.facts.clear();
    section.metrics.clear();
    section.tables.clear();
    section.art.clear();
  }
  r.try_next.clear();
  for (Lang lang : {Lang::en, Lang::zh}) {
    TextStyle narrow = plain();
    narrow.width = 60;
    narrow.lang = lang;
    std::istringstream lines(render_text(r, narrow));
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
      EXPECT_LE(display_width(line), 60u) << line;
      ++count;
    }
    EXPECT_GT(count, 10);
  }
}

// Every reference run shipped under course-notes/runs/ renders exactly as its golden files.
TEST(Render, ReferenceRunsMatchTheirGoldenFiles) {
  const std::filesystem::path runs = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(runs)) {
    if (entry.path().extension() != ".json") continue;
    const auto reports = load_runs(entry.path().string());
    ASSERT_FALSE(reports.empty());
    std::string text, stable;
    TextStyle style = plain();
    style.recorded = true;
    style.timelines = true;  // as `cudalab show` (tools/update-goldens.sh) draws them
    for (const auto& r : reports) {
      text += render_text(r, style);
      stable += render_stable(r);
    }
    auto golden = [&](const char* suffix) {
      std::ifstream in(entry.path().parent_path() / (entry.path().stem().string() + suffix));
      EXPECT_TRUE(in.good()) << "missing golden " << entry.path().stem().string() << suffix;
      std::stringstream ss;
      ss << in.rdbuf();
      return ss.str();
    };
    EXPECT_EQ(text, golden(".txt")) << entry.path();
    EXPECT_EQ(stable, golden(".stable.txt")) << entry.path();
    ++checked;
  }
  EXPECT_GT(checked, 0) << "no reference runs found in " << runs;
}

namespace {

// A cell of a printed table that is a number and nothing else ("1618", "97.54"): its unit is
// missing. The value after "column: " when a too-wide table is stacked.
bool bare_number(std::string cell) {
  const std::size_t colon = cell.rfind(": ");
  if (colon != std::string::npos) cell = cell.substr(colon + 2);
  const bool digits = cell.find_first_of("0123456789") != std::string::npos;
  return digits && cell.find_first_not_of("0123456789.,+-") == std::string::npos;
}

// The cells of one printed table line: its pieces between runs of two or more spaces.
std::vector<std::string> printed_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::size_t at = line.find_first_not_of(' ');
  while (at != std::string::npos) {
    std::size_t end = line.find("  ", at);
    cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
  }
  return cells;
}

}  // namespace

// A lecture table sets the lecture's figures beside this run's, often of different units in one
// column: every number a golden file prints in one carries its unit.
TEST(Render, LectureTablesInTheGoldenFilesPrintEveryNumberWithItsUnit) {
  const std::filesystem::path runs = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";
  int tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(runs)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path().parent_path() / (entry.path().stem().string() + ".txt"));
    std::vector<std::string> golden;
    for (std::string line; std::getline(in, line);) golden.push_back(line);
    for (const auto& r : load_runs(entry.path().string())) {
      for (const auto& s : r.sections) {
        if (s.key.rfind("lecture", 0) != 0) continue;
        for (const auto& t : s.tables) {
          auto header = std::find_if(golden.begin(), golden.end(), [&](const std::string& line) {
            return line.find(t.columns.front().en()) != std::string::npos &&
                   line.find(t.columns.back().en()) != std::string::npos;
          });
          ASSERT_NE(header, golden.end()) << entry.path().filename() << ": no header of table " << t.key;
          ++tables;
          for (auto line = header + 1; line != golden.end() && !line->empty(); ++line) {
            for (const auto& cell : printed_cells(*line)) {
              EXPECT_FALSE(bare_number(cell)) << entry.path().filename() << ", table " << t.key << ": '" << cell
                                              << "' has no unit in:\n" << *line;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(tables, 0) << "no lecture table found in the goldens";
}

TEST(Render, ABareNumberCellIsOneWithoutAUnit) {
  EXPECT_TRUE(bare_number("1618"));
  EXPECT_TRUE(bare_number("97.54"));
  EXPECT_TRUE(bare_number("this run: 1.888"));
  EXPECT_FALSE(bare_number("1618 us"));
  EXPECT_FALSE(bare_number("2.34x"));
  EXPECT_FALSE(bare_number("0 to -5"));
  EXPECT_FALSE(bare_number("-"));
  EXPECT_EQ(printed_cells("  low / high      2.34x     1.966"),
            (std::vector<std::string>{"low / high", "2.34x", "1.966"}));
}

// ---- saved runs: integrity and hostile files -----------------------------------------------


TEST(Integrity, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(std::string(1000, 'a')).substr(0, 16), "41edece42d63e8d9");
  Sha256 pieces;  // fed in pieces, as a run is hashed while it is serialized
  HashingStream out(pieces);
  for (int i = 0; i < 1000; ++i) out << 'a';
  out.flush();
  EXPECT_EQ(pieces.finish_hex().substr(0, 16), "41edece42d63e8d9");
}

// The digest is streamed from the run as it is serialized; it must be exactly the SHA-256 of the
// run's JSON text without its "digest" member, as runs were sealed before.
TEST(Integrity, TheStreamedDigestIsTheDigestOfTheRunsText) {
  Report r = sample_report();
  r.digest = "sha256:whatever";
  nlohmann::json saved = report_to_json(r);
  nlohmann::json without = saved;
  without.erase("digest");
  EXPECT_EQ(run_digest(saved), "sha256:" + sha256_hex(without.dump()));
  EXPECT_EQ(run_digest(nlohmann::json::array({1, "two"})), "sha256:" + sha256_hex("[1,\"two\"]"));
  EXPECT_EQ(run_digest(nlohmann::json::object()), "sha256:" + sha256_hex("{}"));
}

TEST(Integrity, ASealedRunIsIntactUntilItIsEdited) {
  Report r = sample_report();
  r.tool_version = "0.1.0+abc";
  seal(r);
  nlohmann::json saved = report_to_json(r);
  EXPECT_EQ(parse_saved_runs(saved.dump(), "run.json").front().integrity.state, Integrity::intact);
  saved["sections"][0]["metrics"][0]["samples"][0] = 1.0;
  EXPECT_EQ(parse_saved_runs(saved.dump(), "run.json").front().integrity.state, Integrity::modified);
  saved = report_to_json(r);
  saved.erase("digest");
  EXPECT_EQ(parse_saved_runs(saved.dump(), "run.json").front().integrity.state, Integrity::modified)
      << "a sealing build's run without its digest";
}

TEST(Integrity, AVerifyThatContradictsItsOwnCountsIsModified) {
  Report r = sample_report();
  Check doctored = verify_check("results", true, "results match");
  doctored.count = Tally{10, 5};  // 5 of 10 checked elements matched, yet it says pass
  Check failed_whole = verify_check("whole", false, "results match");
  failed_whole.count = Tally{10, 10};  // every element matched, yet it says FAIL
  r.checks = {doctored, failed_whole};
  const auto run = parse_saved_runs(report_to_json(r).dump(), "run.json").front();
  EXPECT_EQ(run.integrity.state, Integrity::modified) << run.integrity.describe();
  EXPECT_NE(run.integrity.describe().en().find("verify results says pass but its own count says FAIL"), std::string::npos);
  EXPECT_NE(run.integrity.describe().en().find("verify whole says FAIL but its own count says pass"), std::string::npos);
  Check nothing_checked = verify_check("k", true, "");
  nothing_checked.count = Tally{0, 0};
  EXPECT_EQ(recompute_check(nothing_checked), std::optional<bool>(false)) << "nothing checked is no pass";
  EXPECT_EQ(recompute_check(expect_check("k", true, "1 of 2")), std::nullopt);
}

TEST(Integrity, AnOldRunWithoutCountsIsJudgedByItsDigestAlone) {
  Report r = sample_report();
  // Runs recorded before checks carried counts said "N of M" only in their prose: never read.
  r.checks = {verify_check("results", true, "results match (5 of 10 elements)")};
  const auto run = parse_saved_runs(report_to_json(r).dump(), "run.json").front();
  EXPECT_EQ(run.integrity.state, Integrity::unsealed) << run.integrity.describe();
  EXPECT_EQ(recompute_check(r.checks.front()), std::nullopt);
}

TEST(Integrity, CountsRoundTripThroughTheRunFile) {
  ReportBuilder b({});
  Tally all, some;
  all.add(4096, 4096);
  some.add(3, 4);
  b.verify("all", all, Counted::bytes, "every copy").verify("some", some, "every batch").verify("two", 7, 7, "pairs");
  const Report built = std::move(b).build();
  EXPECT_TRUE(built.checks[0].passed);
  EXPECT_EQ(built.checks[0].summary.en(), "every copy: 4,096 of 4,096 bytes match the CPU reference");
  EXPECT_FALSE(built.checks[1].passed);
  EXPECT_EQ(built.checks[1].summary.en(), "every batch: 3 of 4 elements match the CPU reference");
  EXPECT_TRUE(built.checks[2].passed);
  const nlohmann::json saved = report_to_json(built);
  EXPECT_EQ(saved["checks"][1]["correct"], 3);
  EXPECT_EQ(saved["checks"][1]["checked"], 4);
  const Report back = report_from_json(saved);
  ASSERT_TRUE(back.checks[1].count.has_value());
  EXPECT_EQ(back.checks[1].count->correct, 3u);
  EXPECT_EQ(back.checks[1].count->checked, 4u);
}

TEST(Integrity, TheReferenceRunsAreNotModified) {
  const std::filesystem::path runs = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";
  // The built-in references, and the runs of the same lessons on the lab's other machines.
  std::vector<std::filesystem::directory_entry> entries;
  for (const auto& folder : {runs, runs / "other-machines"}) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) entries.push_back(entry);
  }
  for (const auto& entry : entries) {
    if (entry.path().extension() != ".json") continue;
    for (const auto& run : read_saved_runs(entry.path().string())) {
      EXPECT_NE(run.integrity.state, Integrity::modified) << entry.path() << ": " << run.integrity.describe();
    }
  }
}

TEST(SavedRuns, HostileFilesAreOneLineUsageErrors) {
  const std::string dir = testing::TempDir();
  const std::string fifo = dir + "cudalab_fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {dir, fifo, std::string("/dev/null/nope")}) {
    EXPECT_THROW(read_saved_runs(path), UsageError) << path;
  }
  ::unlink(fifo.c_str());
  for (const char* text : {"null", "[]", "3", "{ \"schema\": 5 }", "{\"schema\":\"cudalab-run/1\"", ""}) {
    try {
      parse_saved_runs(text, "run.json");
      ADD_FAILURE() << text;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

TEST(SavedRuns, ControlCharactersAreMadeVisible) {
  Report r = sample_report();
  r.sections[0].metrics[0].label = "evil\x1b[31m label";
  const auto run = parse_saved_runs(report_to_json(r).dump(), "run.json").front();
  const std::string text = render_text(run.report, plain());
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("evil\\x1b[31m label"), std::string::npos);
}

// `cudalab all` ends with one row per lesson; a long headline wraps so that every row fits the
// terminal, and a lesson that did not run says why.
TEST(Render, TourSummaryFitsTheTerminal) {
  Report long_one;
  long_one.headline = "stream 0 between streams 1836 -> 818 us non-blocking; two threads 1620 -> 817 us "
                      "per-thread; cudaFree 1701 -> 815 us cudaFreeAsync";
  long_one.checks.push_back({CheckKind::verify, "ok", true, "fine", {}, {}, {}});
  const std::vector<TourRow> rows = {{8, slug_of(8), &long_one, {}}, {10, slug_of(10), nullptr, "waived"}};
  const std::string text = render_tour_summary(rows, TourForm::text, 80);
  std::istringstream in(text);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines) EXPECT_LE(display_width(line), 80u) << line;
  EXPECT_GE(lines, 5u) << "the headline wrapped:\n" << text;
  EXPECT_NE(text.find("cudaFreeAsync"), std::string::npos) << text;
  EXPECT_NE(text.find("1/1 ✓"), std::string::npos) << text;
  EXPECT_NE(text.find("waived"), std::string::npos) << text;
  const std::string stable = render_tour_summary(rows, TourForm::stable, 80);
  EXPECT_EQ(stable.rfind("summary\nlesson 08 " + slug_of(8) + " verify=pass expect=pass environment=clean\n", 0), 0u) << stable;
  EXPECT_EQ(stable.find(long_one.headline.en()), std::string::npos) << "the stable form carries no figures";
}

// A live run (or a run shown from a file) fills its notes from its own figures: here the H200
// reference run of lesson 06 made into another GPU's run, with a default step that is no longer
// GPU-bound. The notes must name that GPU and its SMs and print the claim's other form; the
// reference's device may appear only where the notes cite another lesson's reference run.
TEST(Render, ALiveRunsNotesQuoteItsOwnDeviceAndFigures) {
  const auto path = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs" / "06-graph-pitfall.json";
  auto reports = load_runs(path.string());
  ASSERT_EQ(reports.size(), 1u);
  Report run = reports.front();
  ASSERT_FALSE(run.devices.empty());
  run.devices[0].name = "cudalab made-up GPU";
  run.devices[0].sm_count = 78;
  bool scaled = false;
  for (auto& section : run.sections) {
    for (auto& m : section.metrics) {
      if (m.key == "case.default.launch_share") {
        for (auto& s : m.samples) s = 64.0;  // more than half the step: not GPU-bound
        scaled = true;
      }
    }
  }
  ASSERT_TRUE(scaled) << "the reference run has no case.default.launch_share";
  // Prose wraps at any space: read it with every run of blanks as one space.
  auto unwrapped = [](const std::string& wrapped) {
    std::string out;
    for (char c : wrapped) {
      const bool blank = c == ' ' || c == '\n';
      if (!blank || out.empty() || out.back() != ' ') out += blank ? ' ' : c;
    }
    return out;
  };
  const std::string reference_text = unwrapped(render_text(reports.front(), plain()));
  const std::string text = unwrapped(render_text(run, plain()));
  EXPECT_NE(reference_text.find("In this run the default step is"), std::string::npos);
  EXPECT_NE(reference_text.find("GPU-bound"), std::string::npos);
  EXPECT_NE(text.find("(cudalab made-up GPU) has 78 SMs"), std::string::npos);
  EXPECT_NE(text.find("not clearly"), std::string::npos) << "the claim follows the run's own 64% launch share";
  EXPECT_NE(text.find("64.00%"), std::string::npos);
  EXPECT_NE(text.find("In this run (cudalab made-up GPU,"), std::string::npos);
  // The reference's device appears only where the notes cite another lesson's reference run.
  EXPECT_EQ(text.find("(NVIDIA H200)"), std::string::npos) << "the notes quote the reference run's device";
  EXPECT_EQ(text.find("this run (NVIDIA H200"), std::string::npos) << "the notes quote the reference run's device";
  TextStyle zh = plain();
  zh.lang = Lang::zh;
  const std::string zh_text = unwrapped(render_text(run, zh));
  EXPECT_NE(zh_text.find("并不明显受 GPU 限制"), std::string::npos);
  EXPECT_NE(zh_text.find("（cudalab made-up GPU）有 78 个 SM"), std::string::npos);
  EXPECT_EQ(zh_text.find("（NVIDIA H200）"), std::string::npos);
}
