// A live lecture on an 80-column terminal, in English or Chinese: `list`, `--help` and `show` of
// every reference run fit, and under --lang zh no plain English word is left outside code,
// flag names, units and the notes' own code spans.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/report/markdown.hpp"
#include "common/report/notes.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/render_svg.hpp"
#include "common/report/report_json.hpp"
#include "common/core/text_format.hpp"
#include "common/report/integrity.hpp"
#include "common/report/report_json.hpp"
#include "test_support.hpp"

using namespace cudalab;

namespace {

using testing_support::reference_run_name;
using Outcome = testing_support::CliOutcome;
Outcome run(std::vector<std::string> args) { return testing_support::run_cudalab(std::move(args)); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(' ') - a + 1);
}

// What `cudalab show NN --lang zh` prints, in the languages and forms a lecture uses.
std::vector<std::pair<std::string, Outcome>> screens(const std::string& lang) {
  std::vector<std::pair<std::string, Outcome>> out;
  out.emplace_back("list", run({"list", "--lang", lang}));
  for (const auto& e : course()) {
    if (!reference_run(reference_run_name(e.number))) continue;
    const std::string nn = std::to_string(e.number);
    out.emplace_back("show " + nn, run({"show", nn, "--lang", lang, "--color", "never"}));
    out.emplace_back("show " + nn + " --table", run({"show", nn, "--lang", lang, "--color", "never", "--table"}));
  }
  return out;
}

// Lowercase English words ("pinned", "depth-first") outside flags, flag values, params,
// identifiers, code and units. Lesson names are allowed through the course table below; that
// also covers the training-step method that shares lesson 07's name. Code: the arguments of a
// call or initializer ("cudaGraphLaunch(graph, stream)", "cudaGraphExec_t{nullptr}"), and the
// C and CUDA words the lectures' code quotes use, which stay as they are in any language.
std::vector<std::string> english_words(const std::string& text) {
  static const std::set<std::string> allowed = {
      "us", "ms", "ns", "x", "mod", "ln", "max", "min", "cudalab", "multi-stream", "graph-serial",
      // code: C and CUDA words, subcommands and tools named in commands
      "malloc", "float", "void", "sin", "cos", "memcpy", "memset", "globaltimer", "list", "dot", "args"};
  static const std::regex word("^[a-z]+(-[a-z]+)*$");
  static const std::regex call("[A-Za-z_][A-Za-z0-9_]*[({][^(){}]*[)}]");
  std::string line = text;
  for (std::string inner; inner != line;) {  // nested calls, innermost first
    inner = line;
    line = std::regex_replace(line, call, "CODE");
  }
  std::vector<std::string> found;
  std::string token, previous;
  const auto flush = [&] {
    std::string t = token;
    while (!t.empty() && std::string(",.;:!?)").find(t.back()) != std::string::npos) t.pop_back();
    while (!t.empty() && t.front() == '(') t.erase(0, 1);
    bool slug = false;
    for (const auto& e : course()) slug = slug || t == e.slug;
    if (t.size() >= 2 && std::regex_match(t, word) && allowed.count(t) == 0 && !slug && previous.rfind("--", 0) != 0) {
      found.push_back(t);
    }
    if (!token.empty()) previous = token;
    token.clear();
  };
  for (unsigned char c : line) {
    if (std::isalnum(c) || std::string("_./-'+:=()<>,;!?").find(static_cast<char>(c)) != std::string::npos) {
      token += static_cast<char>(c);
    } else {
      flush();
    }
  }
  flush();
  return found;
}

// Every line the zh notes of `file` render to, at the widths show uses: notes are prose in
// Chinese with English only in their code spans, and are checked by the notes' own tests.
std::set<std::string> note_lines(const std::string& file) {
  std::set<std::string> lines;
  for (const auto& key : notes_keys(Lang::zh, file)) {
    const auto text = notes_section(Lang::zh, file, key);
    if (!text) continue;
    for (std::size_t width : {80u, 78u}) {
      for (const auto& line : render_markdown(*text, MarkdownStyle{width, false, true})) lines.insert(trimmed(line));
    }
  }
  return lines;
}

}  // namespace

// An 80-column terminal in a lecture room: no line of `list`, `--help`, each lesson's `--help`,
// or `show` of any reference run (with and without --table) is wider, in English or Chinese.
TEST(Width, ListHelpAndEveryReferenceRunFitIn80Columns) {
  setenv("COLUMNS", "80", 1);
  for (const std::string lang : {"en", "zh"}) {
    auto outputs = screens(lang);
    outputs.emplace_back("--help", run({"--help"}));
    for (const auto& e : course()) {
      outputs.emplace_back(std::string(e.slug) + " --help", run({e.slug, "--help"}));
      if (!reference_run(reference_run_name(e.number))) continue;
      const std::string nn = std::to_string(e.number);
      outputs.emplace_back("compare " + nn, run({"compare", nn, nn}));  // the reference against itself
    }
    for (const auto& [what, o] : outputs) {
      for (const auto& line : lines_of(o.out)) {
        EXPECT_LE(display_width(line), 80u) << lang << " " << what << ":\n" << line;
      }
    }
  }
}

// Under --lang zh, `list` and `show` of every reference run print no English word outside
// code, flag names, units and the notes' own code spans.
TEST(Lang, ShowInChineseLeavesNoEnglishLabel) {
  setenv("COLUMNS", "80", 1);
  for (const auto& [what, o] : screens("zh")) {
    ASSERT_EQ(o.code, 0) << what << ": " << o.err;
    const std::string nn = what.substr(what.find(' ') + 1, 2);
    std::set<std::string> notes;
    if (what != "list") notes = note_lines(reference_run_name(std::stoi(nn)));
    for (const auto& line : lines_of(o.out)) {
      if (notes.count(trimmed(line)) > 0) continue;
      const auto words = english_words(line);
      EXPECT_TRUE(words.empty()) << what << ": '" << words.front() << "' in:\n" << line;
    }
  }
}

namespace {

// The text of every <text> element of an SVG, entities decoded.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> texts;
  for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const std::size_t open = svg.find('>', at), close = svg.find("</text>", at);
    if (open == std::string::npos || close == std::string::npos || close < open) break;
    std::string t = svg.substr(open + 1, close - open - 1);
    for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
      for (std::size_t k = t.find(entity); k != std::string::npos; k = t.find(entity, k + 1)) t.replace(k, std::strlen(entity), c);
    }
    texts.push_back(t);
  }
  return texts;
}

}  // namespace

// Under --lang zh the SVGs of every reference run (plots and timelines: titles, axes, legends,
// lane names) leave no English word, as the text form does; ticks never read "1e+03".
TEST(Lang, SvgInChineseLeavesNoEnglishLabel) {
  const auto dir = std::filesystem::temp_directory_path() / "cudalab_zh_svgs";
  std::filesystem::remove_all(dir);
  std::size_t texts = 0;
  for (const auto& e : course()) {
    const auto run = reference_run(reference_run_name(e.number));
    if (!run) continue;
    for (const auto& report : parse_saved_runs(std::string(*run), reference_run_name(e.number))) {
      for (const auto& path : write_report_svgs(report.report, dir.string(), Lang::zh)) {
        std::ifstream in(path);
        std::stringstream svg;
        svg << in.rdbuf();
        for (const auto& text : svg_texts(svg.str())) {
          ++texts;
          const auto words = english_words(text);
          EXPECT_TRUE(words.empty()) << path << ": '" << words.front() << "' in: " << text;
          EXPECT_EQ(text.find("e+"), std::string::npos) << path << ": " << text;
        }
      }
    }
  }
  EXPECT_GT(texts, 100u) << "the reference runs hold plots and timelines";
}

// A grader's terminal at 60, 80 and 120 columns: `compare` against a run whose every figure is
// out of tolerance and which was disturbed (every row OUT, the verdict inconclusive, reasons to
// wrap), and `grade` of a folder with a long file name, a truncated file and a disturbed run.
// Nothing is cut: the long name and the reasons appear whole, wrapped.
TEST(Width, CompareAndGradeFitAt60_80And120Columns) {
  namespace fs = std::filesystem;
  nlohmann::json shared = nlohmann::json::parse(*reference_run(reference_run_name(3)));
  for (auto& section : shared["sections"]) {
    for (auto& metric : section["metrics"]) {
      for (auto& sample : metric["samples"]) sample = sample.get<double>() * 2.5;
    }
  }
  for (auto& item : shared["environment"]) {
    if (item["key"] == "other_processes") item["ok"] = false, item["summary"] = "3 other processes used the GPU while the lesson measured: its figures are shared";
  }
  Report doctored = report_from_json(shared);
  seal(doctored);  // as the run that measured these figures would have: intact
  shared = report_to_json(doctored);
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_width_class";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string long_name = "a-student-who-names-files-very-carefully-lesson-03-second-attempt-final.json";
  std::ofstream(dir / long_name) << shared.dump();
  std::ofstream(dir / "truncated.json") << shared.dump().substr(0, 2000);
  const std::string shared_path = (dir / long_name).string();
  for (const char* columns : {"60", "80", "120"}) {
    setenv("COLUMNS", columns, 1);
    const std::size_t width = std::stoul(columns);
    const std::vector<std::pair<std::string, Outcome>> outputs = {
        {"compare", run({"compare", "03", shared_path})},
        {"compare, two runs", run({"compare", "03", "03", shared_path})},
        {"grade", run({"grade", dir.string()})}};
    for (const auto& [what, o] : outputs) {
      EXPECT_EQ(o.code, 1) << what << o.err;
      std::string tight, words;  // the lines joined as a folded name or as wrapped prose
      for (const auto& line : lines_of(o.out)) {
        EXPECT_LE(display_width(line), width) << what << " at " << columns << ":\n" << line;
        tight += trimmed(line);
        words += " " + trimmed(line);
      }
      if (what == "grade") {
        EXPECT_NE(tight.find(long_name), std::string::npos) << "the whole file name, at " << columns << ":\n" << o.out;
        EXPECT_NE(words.find("disturbed: 3 other processes used the GPU while the lesson measured"), std::string::npos)
            << o.out;
      } else {
        EXPECT_NE(o.out.find("OUT"), std::string::npos) << o.out;
        EXPECT_NE(words.find("inconclusive: too noisy to judge"), std::string::npos) << o.out;
      }
    }
  }
  // The same class under --lang zh: every line still fits, and no English word is left in the
  // UI text (keys, units, numbers, file names and device names stay as they are).
  for (const char* columns : {"60", "80", "120"}) {
    setenv("COLUMNS", columns, 1);
    const std::size_t width = std::stoul(columns);
    const std::vector<std::pair<std::string, Outcome>> outputs = {
        {"compare --lang zh", run({"compare", "03", shared_path, "--lang", "zh"})},
        {"compare of two references --lang zh", run({"compare", "03", "03", "--lang", "zh"})},
        {"grade --lang zh", run({"grade", dir.string(), "--lang", "zh"})}};
    for (const auto& [what, o] : outputs) {
      for (const auto& line : lines_of(o.out)) {
        EXPECT_LE(display_width(line), width) << what << " at " << columns << ":\n" << line;
        if (line.find(long_name.substr(0, 20)) != std::string::npos) continue;  // the student's own file name
        const auto words = english_words(line);
        EXPECT_TRUE(words.empty()) << what << ": '" << words.front() << "' in: " << line;
      }
    }
    EXPECT_NE(outputs[0].second.out.find("无法判定"), std::string::npos) << outputs[0].second.out;
    EXPECT_NE(outputs[1].second.out.find("B 与 A 相符"), std::string::npos) << outputs[1].second.out;
    EXPECT_NE(outputs[2].second.out.find("份运行通过"), std::string::npos) << outputs[2].second.out;
  }
  unsetenv("COLUMNS");
}
