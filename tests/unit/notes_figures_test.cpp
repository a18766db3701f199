// Figures in the course notes are references to the lessons' reference runs, or named figures
// with a source (common/report/notes_figures.hpp): every reference expands, and no measured
// figure is typed into the prose by hand.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/course.hpp"
#include "common/report/builder.hpp"
#include "common/report/notes.hpp"
#include "common/report/notes_claims.hpp"
#include "common/report/notes_figures.hpp"
#include "common/core/text_format.hpp"

using namespace cudalab;

namespace {

const std::filesystem::path kNotes = std::filesystem::path(CUDALAB_SOURCE_DIR) / "course-notes";

// Notes whose figures another change is converting when this test was added: their hand-typed
// figures are printed, not failed. Empty it once they are references.
const std::set<std::string> kBeingConverted = {};

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Report made_up_run() {
  Report r;
  r.lesson_number = 3;
  r.lesson_slug = "stream-overlap";
  r.params = {{"streams", "4"}, {"size", "64MiB"}};
  Section s;
  s.key = "lecture";
  s.metrics.push_back(measured("lecture.cold", "cold", "ms", {23.042}));
  s.metrics.push_back(measured("lecture.untouched", "untouched", "ms", {22.0, 22.5, 23.0}));
  s.metrics.push_back(measured("copy", "a copy", "us", {400.0, 500.0, 600.0}).with_prediction(480.0));
  s.metrics.push_back(derived("total", "total", "x", 3.358));
  s.metrics.push_back(derived("part", "part", "x", 2.055));
  s.metrics.push_back(measured("bw", "bandwidth", "GB/s", {10.0}));
  s.facts.push_back({"kernel_fills", "one kernel",
                     msg("{blocks} blocks of {threads}", arg("blocks", std::string("4,096")), arg("threads", 256)), "",
                     true});
  r.sections.push_back(s);
  return r;
}

const std::map<std::string, NamedFigure>& made_up_constants() {
  static const auto constants = parse_named_figures(
      "# a comment\n"
      "lecture002.sequential = 19.62 ms ; lecture 002: \"19.62 ms\"\n"
      "lecture002.speedup = 2.52 x ; lecture 002: \"2.52x\"\n"
      "lecture000.launch = 5-20 x ; lecture 000: \"5-20x\"\n");
  return constants;
}

// The expansion of `text`, its no-break spaces (between a figure and its unit) written as spaces.
std::string expanded(const std::string& text) {
  static const Report run = made_up_run();
  auto out = expand_figures(text, {&run, &made_up_constants(), nullptr});
  EXPECT_TRUE(out.errors.empty()) << text << ": " << (out.errors.empty() ? "" : out.errors.front());
  for (std::size_t at = out.text.find("\u00a0"); at != std::string::npos; at = out.text.find("\u00a0", at)) {
    out.text.replace(at, std::string("\u00a0").size(), " ");
  }
  return out.text;
}

std::vector<std::string> errors_of(const std::string& text) {
  static const Report run = made_up_run();
  return expand_figures(text, {&run, &made_up_constants(), nullptr}).errors;
}

}  // namespace

TEST(NotesFigures, AReferenceIsTheRunsFigureWithItsUnit) {
  EXPECT_EQ(expanded("cold {{lecture.cold}}, then {{lecture.untouched@min}} to {{lecture.untouched@max}}"),
            "cold 23.04 ms, then 22.00 ms to 23.00 ms");
  EXPECT_EQ(expanded("{{copy}} (model {{copy@predicted}}), {{copy@count}} samples, spread {{copy@spread|.0}}"),
            "500.0 µs (model 480.0 µs), 3 samples, spread 40%");
  EXPECT_EQ(expanded("{{total}} and {{total|.2}}, {{copy|ms}}, {{copy|bare}}"), "3.358× and 3.36×, 0.500 ms, 500.0");
  EXPECT_EQ(expanded("{{copy@tolerance|.0}}"), "10%");
  EXPECT_EQ(expanded("{{fact:kernel_fills}} threads, {{param:streams}} streams"), "4,096 blocks of 256 threads, 4 streams");
  EXPECT_EQ(expanded("{{const:lecture002.sequential}}, {{const:lecture002.speedup}}, {{const:lecture000.launch}}"),
            "19.62 ms, 2.52×, 5–20×");
  EXPECT_EQ(expanded("no reference here"), "no reference here");
  // A fact's text is printed in the notes' language, as the output prints it.
  static const Report run = made_up_run();
  EXPECT_EQ(expand_figures("{{fact:kernel_fills}}", {&run, &made_up_constants(), nullptr, Lang::zh}).text,
            "4,096 个线程块，每个 256 个线程");
}

TEST(NotesFigures, AFigureAndItsUnitAreNeverSplitAcrossLines) {
  static const Report run = made_up_run();
  const auto out = expand_figures("{{lecture.cold}}", {&run, &made_up_constants(), nullptr});
  EXPECT_EQ(out.text, "23.04\u00a0ms");
  for (std::size_t width = 8; width < 40; ++width) {  // from the figure's own width up
    for (const auto& line : wrap_text("the cold run took " + out.text + " here", width)) {
      EXPECT_TRUE(line.find("23.04") == std::string::npos || line.find("ms") != std::string::npos) << line;
    }
  }
}

TEST(NotesFigures, AComparisonIsComputedFromTheFigures) {
  EXPECT_EQ(expanded("{{ratio(lecture.cold, lecture.untouched)|.2}}"), "1.02×");
  EXPECT_EQ(expanded("{{diff(lecture.cold, copy)}}"), "22.54 ms");  // µs converted to ms
  EXPECT_EQ(expanded("{{percent(copy, lecture.cold)|.1}}"), "2.2%");
  EXPECT_EQ(expanded("{{times(copy, 4)|ms}}"), "2.000 ms");
  EXPECT_EQ(expanded("{{logshare(part, total)|.0}}"), "59%");
  EXPECT_EQ(expanded("{{ratio(64MiB, bw)}}"), "6.711 ms");  // a size at a bandwidth is a time
  EXPECT_EQ(expanded("{{ratio(diff(lecture.cold, lecture.untouched), copy)|.1}}"), "1.1×");
  EXPECT_EQ(expanded("{{percent(diff(total, 1), 1)|.0}}"), "236%");
  EXPECT_EQ(expanded("{{ratio(const:lecture002.sequential, lecture.cold)}}"), "0.851×");
}

// A reference that names nothing, or one the form does not allow, never prints a number.
TEST(NotesFigures, AMissingOrMalformedReferenceIsAnErrorAndAVisibleMarker) {
  static const Report run = made_up_run();
  const auto out = expand_figures("a {{lecture.colt}} b", {&run, &made_up_constants(), nullptr});
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors.front().find("no metric lecture.colt"), std::string::npos) << out.errors.front();
  EXPECT_EQ(out.text, "a [missing figure: lecture.colt] b");
  for (const std::string bad : {"{{fact:none}}", "{{param:none}}", "{{const:none}}", "{{lecture.cold@p50}}",
                                "{{lecture.cold@predicted}}", "{{ratio(lecture.cold, bw)}}", "{{ratio(lecture.cold)}}",
                                "{{ratio(ratio(ratio(copy, copy), copy), copy)}}", "{{lecture.cold|.9}}",
                                "{{times(copy, copy)}}", "{{diff(fact:kernel_fills, copy)}}", "{{unknown:x}}",
                                "{{pow(copy, copy)}}", "{{ratio(copy, diff(copy, copy))}}", "{{lecture.cold",
                                "{{07-graph-forkjoin/k1.graph}}"}) {
    EXPECT_FALSE(errors_of(bad).empty()) << bad;
  }
  EXPECT_FALSE(expand_figures("{{copy}}", {nullptr, nullptr, nullptr}).errors.empty());
}

TEST(NotesFigures, NamedFiguresNeedANumberAndASource) {
  const auto figures = made_up_constants();
  ASSERT_EQ(figures.count("lecture000.launch"), 1u);
  EXPECT_EQ(figures.at("lecture000.launch").low, 5);
  EXPECT_EQ(*figures.at("lecture000.launch").high, 20);
  EXPECT_EQ(figures.at("lecture002.sequential").unit, "ms");
  for (const char* bad : {"a = 1 ms\n", "a = ms ; lecture 002\n", "= 1 ms ; lecture 002\n", "a = 1 ms ;\n",
                          "a = 1 ms ; x\na = 2 ms ; y\n"}) {
    EXPECT_THROW(parse_named_figures(bad), std::invalid_argument) << bad;
  }
}

// Every reference in every section of every lesson's notes, en and zh, names something in the
// lesson's reference run or a named figure.
TEST(NotesFigures, EveryReferenceInTheNotesExpands) {
  int sections = 0;
  for (const auto& entry : course()) {
    if (entry.make == nullptr) continue;
    for (const Lang lang : {Lang::en, Lang::zh}) {
      for (const auto& key : notes_keys(lang, entry.id())) {
        const auto source = notes_section_source(lang, entry.id(), key);
        ASSERT_TRUE(source.has_value());
        const auto out = render_notes_text(*source, builtin_figures(lang, entry.id()));
        for (const auto& e : out.errors) ADD_FAILURE() << lang_name(lang) << "/" << entry.id() << " [" << key << "]: " << e;
        EXPECT_EQ(out.text, *notes_section(lang, entry.id(), key));
        ++sections;
      }
    }
  }
  EXPECT_GT(sections, 100);
}

namespace {

// ── The prose scan: a measured figure typed by hand ────────────────────────────────────────────

// Units a measured figure carries in the notes: times, rates, factors, shares. Sizes and counts
// are inputs (flags), not measurements. "x" and "×" count only touching the number ("2.5×"),
// since "132 × 8" multiplies.
const std::vector<std::string>& figure_units() {
  static const std::vector<std::string> units = {"GB/s", "MB/s", "GiB/s", "ns", "µs", "us", "ms", "s", "%",
                                                 "×",    "x",    "倍",    "毫秒", "微秒", "纳秒", "秒"};
  return units;
}

// Words and marks that join the numbers of one figure: "18.3–25.3 ms", "1.441 against 0.334 µs".
const std::vector<std::string>& figure_joins() {
  static const std::vector<std::string> joins = {"–", "—", "-", "/", ",", "，", "、", "→", "to", "and", "or",
                                                 "against", "of", "对", "和", "到", "至", "或", "与"};
  return joins;
}

// Words after which a decimal is a version or a section, not a figure: "CUDA 13.0", "section 4.3".
const std::vector<std::string>& version_words() {
  static const std::vector<std::string> words = {"CUDA ", "nvcc ", "NCCL ", "section ", "driver ", "v"};
  return words;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The prose of a notes file: no code (fenced or inline), no HTML comments, no reference (each
// becomes "#"), no answer list of a predict question ("[1, 1.5, 2]").
std::string prose_only(const std::string& text) {
  std::string out;
  bool fenced = false;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.rfind("<!--", 0) == 0) continue;
    std::string kept;
    bool code = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '`') code = !code;
      else if (!code && line.compare(i, 2, "{{") == 0 && line.find("}}", i) != std::string::npos) {
        kept += '#';
        i = line.find("}}", i) + 1;
      } else if (!code) kept += line[i];
    }
    const std::size_t open = kept.rfind(" [");
    if (open != std::string::npos && kept.back() == ']' &&
        kept.find_first_not_of("0123456789., ", open + 2) == kept.size() - 1) {
      kept.erase(open);
    }
    out += kept + '\n';
  }
  return out;
}

std::size_t number_end(const std::string& t, std::size_t i) {
  while (i < t.size() && (is_digit(t[i]) || ((t[i] == '.' || t[i] == ',') && i + 1 < t.size() && is_digit(t[i + 1])))) ++i;
  return i;
}

// The unit right after a number (one space allowed), or "".
std::string unit_at(const std::string& t, std::size_t i) {
  const std::size_t at = i < t.size() && t[i] == ' ' ? i + 1 : i;
  for (const auto& u : figure_units()) {
    if (t.compare(at, u.size(), u) != 0) continue;
    if ((u == "x" || u == "×") && at != i) continue;
    const std::size_t end = at + u.size();
    if (is_ascii_word(u.back()) && end < t.size() && is_ascii_word(t[end])) continue;
    return u;
  }
  return "";
}

// Where the next number of the same figure starts after a join, or npos.
std::size_t joined_number(const std::string& t, std::size_t i) {
  std::size_t at = i;
  while (at < t.size() && t[at] == ' ') ++at;
  for (const auto& j : figure_joins()) {
    if (t.compare(at, j.size(), j) != 0) continue;
    std::size_t next = at + j.size();
    while (next < t.size() && t[next] == ' ') ++next;
    if (next < t.size() && is_digit(t[next])) return next;
  }
  return std::string::npos;
}

bool after_version_word(const std::string& t, std::size_t start) {
  for (const auto& w : version_words()) {
    if (start >= w.size() && t.compare(start - w.size(), w.size(), w) == 0) return true;
  }
  return t.compare(number_end(t, start), 4, " 节") == 0 || t.compare(number_end(t, start), 3, "节") == 0;
}

// Every figure typed into `text` by hand: a number with a unit (or a run of numbers ending in
// one), or a decimal that is not a version. "100%" is a whole, not a measurement.
std::vector<std::string> typed_figures(const std::string& text) {
  const std::string t = prose_only(text);
  std::vector<std::string> found;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!is_digit(t[i]) || (i > 0 && (is_ascii_word(t[i - 1]) || t[i - 1] == '.'))) continue;
    const std::size_t start = i;
    std::size_t end = number_end(t, i);
    const bool decimal = t.substr(start, end - start).find('.') != std::string::npos;
    std::string unit = unit_at(t, end);
    for (std::size_t next = joined_number(t, end); unit.empty() && next != std::string::npos;
         next = joined_number(t, end)) {
      end = number_end(t, next);
      unit = unit_at(t, end);
    }
    const std::string figure = t.substr(start, end - start) + (unit.empty() ? "" : " " + unit);
    if ((!unit.empty() && figure != "100 %") || (decimal && !after_version_word(t, start))) found.push_back(figure);
    i = number_end(t, start);
  }
  return found;
}

}  // namespace

// The scan itself: a hand-typed figure in any of the ways the notes write them is caught, and
// what is not a measured figure passes.
TEST(NotesFigures, AFigureTypedByHandIsFound) {
  for (const std::string typed : {"took 4.5 ms", "read 55 GB/s", "2.52× faster", "a 2x ratio", "71% of it",
                                  "18.3–25.3 ms", "1.441 against 0.334 µs", "1015, 1217 or 1620 µs",
                                  "the ratio is 1.01 there", "相差 2 倍", "为 5.87 毫秒", "1.96 倍", "3.8 → 6.9 ms"}) {
    EXPECT_FALSE(typed_figures(typed).empty()) << typed;
  }
  for (const std::string fine : {"{{lecture.cold}} cold", "`--size 64MiB`", "4 streams", "132 × 8 = 1,056",
                                 "CUDA 13.0", "section 4.3", "（4.3 节）", "above 100% slower", "2026-11-26",
                                 "Gen5 x16", "sm_90", "- speedup (x): How fast? [1, 1.5, 2, 3]",
                                 "{{a}}–{{b}} ms", "```\nt = 4.5 ms\n```", "a 64 MiB copy"}) {
    EXPECT_TRUE(typed_figures(fine).empty()) << fine << ": " << typed_figures(fine).front();
  }
}

// No measured figure is typed into the notes: each is a reference to a run or a named figure.
TEST(NotesFigures, TheNotesTypeNoMeasuredFigure) {
  int files = 0;
  for (const auto& entry : course()) {
    if (entry.make == nullptr) continue;
    for (const char* lang : {"en", "zh"}) {
      const auto typed = typed_figures(read(kNotes / lang / (entry.id() + ".md")));
      ++files;
      if (typed.empty()) continue;
      std::string all;
      for (const auto& f : typed) all += "\n  " + f;
      if (kBeingConverted.count(entry.id()) != 0) {
        std::cout << "[ pending  ] " << lang << "/" << entry.id() << " (being converted):" << all << '\n';
      } else {
        ADD_FAILURE() << lang << "/" << entry.id() << ".md types figures a run measures; write them as "
                      << "references ({{metric}}) or named figures ({{const:name}}):" << all;
      }
    }
  }
  EXPECT_GT(files, 10);
}

// Every named figure says where it comes from, in one of the three ways constants.txt allows, and
// quotes its number as the source gives it; every one is used.
TEST(NotesFigures, NamedFiguresNameTheirSourceAndAreUsed) {
  const std::string file = read(kNotes / "figures" / "constants.txt");
  const auto figures = parse_named_figures(file);
  EXPECT_GT(figures.size(), 5u);
  std::string notes;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kNotes)) {
    if (entry.path().extension() == ".md") notes += read(entry.path());
  }
  for (const auto& [name, f] : figures) {
    const bool lecture = f.source.rfind("lecture 00", 0) == 0, docs = f.source.rfind("CUDA documentation", 0) == 0,
               lab = f.source.rfind("lab 20", 0) == 0;
    EXPECT_TRUE(lecture || docs || lab) << name << ": its source must be a lecture, the CUDA documentation or a "
                                        << "dated lab measurement: " << f.source;
    const std::string first = f.written.substr(0, f.written.find('-', 1));
    if (lecture) {
      EXPECT_NE(f.source.find(first), std::string::npos) << name << ": quote the lecture's own figure";
    }
    EXPECT_NE(notes.find("{{const:" + name + "}}"), std::string::npos) << name << " is used by no notes";
  }
}

// The lecture's figures live in constants.txt only (issue 45 item 4): no lesson's code and no
// catalogue entry types one of them again; labels quote them by name (common/report/named_figures.hpp).
// The catalogues keep, after their "labels as runs recorded before" marker, the entries that runs
// already shipped hold, with the figures those runs were recorded with.
TEST(NotesFigures, TheLessonsAndCataloguesQuoteTheLecturesFiguresByName) {
  const auto figures = parse_named_figures(read(kNotes / "figures" / "constants.txt"));
  std::vector<std::string> typed;  // "19.62 ms", "5-20x", "2.52×": a figure as a label would type it
  for (const auto& [name, f] : figures) {
    if (f.source.rfind("lecture 00", 0) != 0) continue;
    // A whole number ("10 us") is too common to be the lecture's unless it is written as the
    // lecture writes it, approximately ("~10 us").
    const bool whole = f.written.find_first_of(".-") == std::string::npos;
    const std::string value = whole ? "~" + f.written : f.written;
    if (f.unit == "x") {
      typed.push_back(value + "x");
      typed.push_back(value + "×");
    } else {
      typed.push_back(value + " " + f.unit);
    }
  }
  ASSERT_GT(typed.size(), 8u);
  const auto root = std::filesystem::path(CUDALAB_SOURCE_DIR);
  auto check = [&](const std::filesystem::path& path, std::string text) {
    const auto legacy = text.find("# ── labels as runs recorded before");
    if (legacy != std::string::npos) text.resize(legacy);
    for (const auto& figure : typed) {
      EXPECT_EQ(text.find(figure), std::string::npos) << path.lexically_relative(root) << " types " << figure;
    }
  };
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "lessons")) {
    const auto name = entry.path().filename().string();
    const bool source = entry.path().extension() == ".cpp" || entry.path().extension() == ".cu" ||
                        entry.path().extension() == ".hpp";
    if (!source || name.find("_test") != std::string::npos) continue;
    check(entry.path(), read(entry.path()));
    ++files;
  }
  for (const auto& entry : std::filesystem::directory_iterator(kNotes / "zh" / "labels")) {
    if (entry.path().extension() != ".po") continue;
    check(entry.path(), read(entry.path()));
    ++files;
  }
  EXPECT_GT(files, 20u);
}
