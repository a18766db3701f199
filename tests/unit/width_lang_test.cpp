// A newcomer's terminal, 60, 80 or 120 columns wide, in English or Chinese: every command of the
// README and docs/ fits it, and under --lang zh no plain English word is left outside code, flag names,
// units and the notes' own code spans: in `list`, `show`, `compare`, `grade`, the help, the
// --print-config listing, the error lines and the SVGs.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "common/report/json_field.hpp"
#include "common/report/translate.hpp"
#include "test_support.hpp"

using namespace cudalab;

namespace {

using testing_support::reference_run_name;
using Outcome = testing_support::CliOutcome;
const std::string kLongName = "a-student-who-names-files-very-carefully-lesson-03-second-attempt-final.json";
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
      "malloc", "float", "void", "sin", "cos", "memcpy", "memset", "globaltimer", "list", "dot", "args",
      "exercise"};
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

namespace {

namespace fs = std::filesystem;

// A class folder for `compare` and `grade`: lesson 03's reference run with every figure 2.5×
// out of tolerance and three other processes on the GPU (every row OUT, the verdict
// inconclusive, reasons to wrap), sealed as the run that measured it would be, under a long file
// name; and a truncated run. Returns the long-named run's path.
std::string write_class_folder(const fs::path& dir) {
  nlohmann::json shared = nlohmann::json::parse(*reference_run(reference_run_name(3)));
  for (auto& section : shared["sections"]) {
    for (auto& metric : section["metrics"]) {
      for (auto& sample : metric["samples"]) sample = sample.get<double>() * 2.5;
      // A noisy headline too, so the run is disturbed for two reasons at once: each must reach
      // the student in their language, not the pair as one untranslated phrase.
      if (metric["key"] == "speedup.depth_first") {
        for (std::size_t i = 1; i < metric["samples"].size(); i += 2) {
          metric["samples"][i] = metric["samples"][i].get<double>() * 1.5;
        }
      }
    }
  }
  for (auto& item : shared["environment"]) {
    if (item["key"] != "other_processes") continue;
    item["ok"] = false;  // the preflight's finding, then its advice, as common/gpu/preflight.cpp words them
    item["summary"] = msg("{found}: {advice}",
                          arg("found", msg("{count} other processes worked on the GPU while the lesson measured",
                                           arg("count", 3))),
                          arg("advice", "its figures are shared, expect noise (wait with --wait-idle SECONDS)"));
  }
  Report doctored = report_from_json(shared);
  seal(doctored);  // as the run that measured these figures would have: intact
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path long_named = dir / kLongName;
  std::ofstream(long_named) << report_to_json(doctored).dump();
  std::ofstream(dir / "truncated.json") << report_to_json(doctored).dump().substr(0, 2000);
  return long_named.string();
}

// One command of the README or docs/ as a student, instructor or grader types it, and the exit code it
// must end with here, without a GPU (77: waived).
struct Typed {
  std::vector<std::string> args;
  int code;
};

// `help` for every topic and `--help` for every command: each lesson, and each other command.
void add_help(std::vector<Typed>& typed) {
  typed.push_back({{"--help"}, 0});
  typed.push_back({{"help"}, 0});
  for (const std::string command : {"list", "all", "show", "live", "compare", "grade", "submit", "help", "completion"}) {
    typed.push_back({{command, "--help"}, 0});
    typed.push_back({{"help", command}, 0});
  }
  for (const auto& e : course()) {
    typed.push_back({{e.slug, "--help"}, 0});
    typed.push_back({{"help", std::to_string(e.number)}, 0});
    typed.push_back({{"live", e.slug, "--help"}, 0});
  }
}

// `show` of every reference run in every form the README and docs/ name (by number, by name, from the
// file; --table, --stable, --portable), `compare` of each reference against itself, a run out of
// tolerance against its reference, `grade` of the reference runs and of a class folder.
void add_recorded(std::vector<Typed>& typed, const std::string& class_dir, const std::string& doctored) {
  const std::string runs = std::string(CUDALAB_SOURCE_DIR) + "/course-notes/runs";
  for (const auto& e : course()) {
    if (!reference_run(reference_run_name(e.number))) continue;
    const std::string nn = std::to_string(e.number);
    typed.push_back({{"show", nn}, 0});
    typed.push_back({{"show", e.slug, "--table"}, 0});
    typed.push_back({{"show", runs + "/" + reference_run_name(e.number) + ".json"}, 0});
    typed.push_back({{"show", nn, "--stable"}, 0});
    typed.push_back({{"show", nn, "--portable"}, 0});
    typed.push_back({{"compare", nn, nn}, 0});
  }
  typed.push_back({{"compare", "03", doctored}, 1});
  typed.push_back({{"compare", "03", "03", doctored, "--tolerance", "10%"}, 1});
  typed.push_back({{"grade", runs}, 1});  // the references handed in as runs are copies of themselves
  typed.push_back({{"grade", class_dir}, 1});
}

// What needs a GPU, typed on a machine without one: every lesson, `all`, live mode, and
// --print-config (which runs nothing, so it answers here too); errors a newcomer makes.
void add_without_gpu(std::vector<Typed>& typed, const std::string& preset) {
  typed.push_back({{}, 0});
  typed.push_back({{"list"}, 0});
  typed.push_back({{"list", "--times"}, 0});
  typed.push_back({{"--version"}, 0});
  for (const auto& e : course()) {
    typed.push_back({{std::to_string(e.number)}, 77});
    typed.push_back({{e.slug, "--print-config"}, 0});
  }
  typed.push_back({{"all"}, 77});
  typed.push_back({{"all", "--print-config"}, 0});
  typed.push_back({{"all", "--stable"}, 77});
  typed.push_back({{"live", "03"}, 77});
  typed.push_back({{"03", "--live"}, 77});
  typed.push_back({{"live", "03", "--print-config"}, 0});
  typed.push_back({{"--config", preset, "03", "--print-config"}, 0});
  typed.push_back({{"03", "--config", preset, "--streams", "8", "--print-config"}, 0});
  typed.push_back({{"03", "--streams", "0"}, 2});
  typed.push_back({{"03", "--size", "64XB"}, 2});
  typed.push_back({{"04", "--bogus"}, 2});
  typed.push_back({{"lesson-that-is-not"}, 2});
  typed.push_back({{"compare"}, 2});
  typed.push_back({{"show", "no-such-run.json"}, 2});
  typed.push_back({{"grade", "/no/such/folder"}, 2});
}

// Every command of the README and docs/; the test adds --lang to each that takes it. Output captured off
// a terminal has no colour, so --color is left at auto.
std::vector<Typed> every_command(const fs::path& scratch) {
  const std::string doctored = write_class_folder(scratch / "class");
  const std::string preset = (scratch / "class.toml").string();
  std::ofstream(preset) << "[stream-overlap]\nstreams = 8\nsize = \"64MiB\"\nstrict = true\n\n[all]\nlang = \"zh\"\n";
  std::vector<Typed> typed;
  add_help(typed);
  add_recorded(typed, (scratch / "class").string(), doctored);
  add_without_gpu(typed, preset);
  return typed;
}

std::string joined(const std::vector<std::string>& args) {
  std::string text = "cudalab";
  for (const auto& a : args) text += " " + a;
  return text;
}

}  // namespace

// A newcomer's terminal at 60, 80 and 120 columns, in English and Chinese: every command of the
// README and docs/, run here without a GPU, ends with its documented exit code, prints no line of stdout
// wider than the terminal (CJK characters count two columns), and keeps stderr to one line.
// The grader forms (--stable, --portable) are not folded: graders diff them, so they are the
// same bytes at every width (checked here), whatever the terminal. Completion scripts are read
// by the shell, not by a person, and markdown, CSV and JSON forms are files, not screens: they
// are not run here.
TEST(Width, EveryCommandFitsAt60_80And120ColumnsInEnglishAndChinese) {
  testing_support::hide_gpus();
  const auto typed = every_command(fs::path(testing::TempDir()) / "cudalab_every_command");
  const auto grader_form = [](const std::vector<std::string>& args) {
    return std::find_if(args.begin(), args.end(), [](const std::string& a) { return a == "--stable" || a == "--portable"; }) !=
           args.end();
  };
  std::map<std::string, std::string> grader_forms;  // command -> its output at the first width
  std::size_t lines = 0;
  for (const char* columns : {"60", "80", "120"}) {
    setenv("COLUMNS", columns, 1);
    const std::size_t width = std::stoul(columns);
    for (const std::string lang : {"en", "zh"}) {
      for (const auto& t : typed) {
        std::vector<std::string> args = t.args;
        if (!args.empty() && args[0] != "--version" && args[0] != "completion") args.insert(args.end(), {"--lang", lang});
        const Outcome o = run(args);
        const std::string what = joined(args) + " at " + columns + " columns";
        EXPECT_EQ(o.code, t.code) << what << "\n" << o.err << o.out;
        EXPECT_TRUE(o.err.empty() || testing_support::one_line(o.err)) << what << ":\n" << o.err;
        if (grader_form(args)) {
          const auto [first, fresh] = grader_forms.emplace(joined(args), o.out);
          EXPECT_TRUE(fresh || first->second == o.out) << what << " differs from the same at another width";
          continue;
        }
        for (const auto& line : lines_of(o.out)) {
          ++lines;
          EXPECT_LE(display_width(line), width) << what << ":\n" << line;
        }
      }
    }
  }
  unsetenv("COLUMNS");
  EXPECT_GT(lines, 50000u) << "every screen was printed";
}

// Under --lang zh, `list` and `show` of every reference run print no English word outside
// code, flag names, units and the notes' own code spans.
TEST(Lang, ShowInChineseLeavesNoEnglishLabel) {
  const TranslationAudit audit;  // every template rendered in Chinese has its entry
  setenv("COLUMNS", "80", 1);
  for (const auto& [what, o] : screens("zh")) {
    ASSERT_EQ(o.code, 0) << what << ": " << o.err;
    const std::string nn = what.substr(what.find(' ') + 1, 2);
    std::set<std::string> notes;
    if (what != "list") notes = note_lines(reference_run_name(std::stoi(nn)));
    for (const auto& line : lines_of(o.out)) {
      if (notes.count(trimmed(line)) > 0) continue;
      // The provenance line names who ran it and where ("由 root 在 vm 上运行"): data, not words.
      if (line.rfind("由 ", 0) == 0 && line.find(" 上运行") != std::string::npos) continue;
      const auto words = english_words(line);
      EXPECT_TRUE(words.empty()) << what << ": '" << words.front() << "' in:\n" << line;
    }
  }
  EXPECT_GT(audit.looked_up(), 100u);
  for (const auto& templ : audit.missing()) ADD_FAILURE() << "no Chinese for the template: " << templ;
}

// A trace (--trace) names its processes, its streams and the operations our code names in the
// student's language: `show NN --trace FILE --lang zh` of every reference run. A kernel keeps its
// symbol, a wait its CUDA call and a host callback the lesson's name for it: data, as in the run.
TEST(Lang, TracesInChineseLeaveNoEnglishLabel) {
  const TranslationAudit audit;
  const std::string path = testing::TempDir() + "cudalab_zh_trace.json";
  int named = 0;
  for (const auto& e : course()) {
    if (!reference_run(reference_run_name(e.number))) continue;
    const std::string nn = std::to_string(e.number);
    std::filesystem::remove(path);
    const Outcome o = run({"show", nn, "--lang", "zh", "--trace", path});
    ASSERT_EQ(o.code, 0) << nn << ": " << o.err;
    std::ifstream in(path);
    const nlohmann::json trace = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(trace.contains("traceEvents")) << nn;
    for (const auto& event : trace["traceEvents"]) {
      const std::string cat = event.value("cat", "");
      if (cat == "kernel" || cat == "sync" || cat == "host_callback") continue;
      const bool metadata = event["ph"] == "M";
      const std::string name = metadata ? event["args"].value("name", "") : event["name"].get<std::string>();
      if (name.empty()) continue;  // a sort index
      ++named;
      for (const auto& word : english_words(name)) ADD_FAILURE() << "show " << nn << " --trace: '" << word << "' in " << name;
    }
  }
  EXPECT_GT(named, 100);
  for (const auto& templ : audit.missing()) ADD_FAILURE() << "no Chinese for the template: " << templ;
}

// The English words of a help or --print-config screen that are not what a user types: the
// usage line, the first column (flags, commands, positionals and their type names), a setting's
// name and value ("streams = 4"), a default that is a value ("[默认：text]"), code spans and
// example commands, the flag names and the values of the choice flags the screen lists ("auto"
// of auto|always|never), and the words the user typed, echoed in an error.
std::vector<std::string> untyped_english_words(const std::string& screen, const std::vector<std::string>& args) {
  static const std::regex first_column(R"(^  (-\S+|[a-z][a-z0-9-]*|[A-Z]+)( \S+)?(\s{2,}|$))");
  static const std::regex setting(R"(^[a-z][a-z0-9-]* += \S+)");
  static const std::regex typed_default(R"(\[默认：[^ \]]*\])");
  static const std::regex code_span("`[^`]*`");
  // An example command in a description: "compare 03 mine.json", "cudalab completion bash".
  static const std::regex example(R"((cudalab )?\b(show|compare|grade|submit|completion|list|help|live|all|exercise)( [A-Za-z0-9_./-]+)+)");
  static const std::regex choices(R"([a-z]+(\|[a-z]+)+|--[a-z][a-z0-9-]*)");
  // The kinds of check as the grader forms print them ("verify KEY pass"), named so in the help;
  // "shell", which Chinese writes as it is.
  std::set<std::string> typed = {"verify", "expect", "shell"};
  for (auto it = std::sregex_iterator(screen.begin(), screen.end(), choices); it != std::sregex_iterator(); ++it) {
    std::string words = it->str();
    if (words.rfind("--", 0) == 0) words.erase(0, 2);
    for (std::size_t at = 0; at != std::string::npos;) {
      const std::size_t bar = words.find('|', at);
      typed.insert(words.substr(at, bar == std::string::npos ? bar : bar - at));
      at = bar == std::string::npos ? bar : bar + 1;
    }
  }
  typed.insert(args.begin(), args.end());  // what the user typed, echoed back
  std::vector<std::string> found;
  for (std::string line : lines_of(screen)) {
    if (line.rfind("用法：", 0) == 0) continue;
    line = std::regex_replace(line, first_column, "");
    line = std::regex_replace(line, setting, "");
    line = std::regex_replace(line, typed_default, "");
    line = std::regex_replace(line, code_span, "CODE");
    line = std::regex_replace(line, example, "CODE");
    for (const auto& word : english_words(line)) {
      if (typed.count(word) == 0) found.push_back(word + " in: " + line);
    }
  }
  return found;
}

// Under --lang zh, what surrounds the lessons speaks Chinese too: the help of every command and
// lesson (its title included), --print-config, and CLI11's and our own error lines on stderr.
// Flag names, their values and type names (SIZE, auto|always|never) stay as they are typed.
TEST(Lang, HelpConfigAndErrorsInChineseLeaveNoEnglishLabel) {
  const TranslationAudit audit;  // every template rendered in Chinese has its entry
  testing_support::hide_gpus();
  setenv("COLUMNS", "80", 1);
  std::vector<std::vector<std::string>> typed = {{"--help"}, {"help"}, {"all", "--print-config"},
                                                 {"live", "03", "--print-config"}};
  for (const std::string command : {"list", "all", "show", "live", "compare", "grade", "submit", "help", "exercise"}) {
    typed.push_back({command, "--help"});
  }
  typed.push_back({"help", "completion"});  // completion takes no --lang: its script has no words
  for (const auto& e : course()) {
    typed.push_back({e.slug, "--help"});
    typed.push_back({"help", std::to_string(e.number)});
    typed.push_back({e.slug, "--print-config"});
  }
  const std::vector<std::vector<std::string>> mistakes = {
      {"compare"}, {"03", "--streams", "0"}, {"04", "--bogus"}, {"lesson-that-is-not"}, {"show", "no-such-run.json"},
      {"03", "--size", "64XB"}, {"03"}, {"03", "--submit"}, {"submit", "no-such-run.json"}};
  for (auto args : typed) {
    args.insert(args.end(), {"--lang", "zh"});
    const Outcome o = run(args);
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find_first_of("\xe4\xe5\xe6\xe7\xe8\xe9"), std::string::npos) << joined(args) << ": no Chinese";
    for (const auto& word : untyped_english_words(o.out, args)) ADD_FAILURE() << joined(args) << ": " << word;
  }
  for (auto args : mistakes) {
    args.insert(args.end(), {"--lang", "zh"});
    const Outcome o = run(args);
    EXPECT_NE(o.code, 0) << joined(args);
    EXPECT_TRUE(testing_support::one_line(o.err)) << joined(args) << ":\n" << o.err;
    for (const auto& word : untyped_english_words(o.err, args)) ADD_FAILURE() << joined(args) << ": " << word;
  }
  unsetenv("COLUMNS");
  EXPECT_GT(audit.looked_up(), 100u);
  for (const auto& templ : audit.missing()) ADD_FAILURE() << "no Chinese for the template: " << templ;
}

// The first line of a lesson's help under --lang zh names it by its Chinese title, the one
// `show NN --lang zh` prints in its header.
TEST(Lang, LessonHelpNamesTheLessonInChinese) {
  for (const auto& e : course()) {
    // The lesson's own zh title, which a report's header (through the lesson's catalogue) prints too.
    const std::string title = e.title.zh;
    ASSERT_EQ(tr(Lang::zh, Message(e.title.en), e.id()), title) << e.id() << ": its catalogue and its description disagree";
    for (const auto& args : std::vector<std::vector<std::string>>{{e.slug, "--help", "--lang", "zh"},
                                                                  {"help", std::to_string(e.number), "--lang", "zh"}}) {
      const Outcome o = run(args);
      ASSERT_EQ(o.code, 0) << o.err;
      EXPECT_NE(lines_of(o.out).at(0).find(title), std::string::npos) << joined(args) << ":\n" << o.out;
      EXPECT_EQ(o.out.find(e.title.en), std::string::npos) << joined(args) << ":\n" << o.out;
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

// Every word a lesson's run holds, rendered or not (sections, tables, facts, checks, plots,
// timelines: Report's own walk, for_each_message), has its Chinese in the lesson's catalogue or a
// shared one: every lesson's reference run and every run of another machine, as lesson 11's own
// audit does for each of its report's forms. A lesson's unit tests audit the forms its runs here
// do not show. A run of schema 1 holds its words in English, not as templates, and is shown so.
TEST(Lang, EveryWordOfEveryLessonsRunsHasItsChinese) {
  namespace fs = std::filesystem;
  const fs::path runs = fs::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";
  std::set<int> lessons;
  std::size_t files = 0;
  for (const auto& folder : {runs, runs / "other-machines"}) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().extension() != ".json") continue;
      ++files;
      for (auto& report : load_runs(entry.path().string())) {
        if (report.schema == kLegacyReportSchema) continue;
        const std::string catalogue = report.notes_file();  // the renderer's own choice of catalogue
        const TranslationAudit audit;
        for_each_message(report, [&](const Message& text) { (void)tr(Lang::zh, text, catalogue); });
        EXPECT_GT(audit.looked_up(), 20u) << entry.path().filename();
        for (const auto& templ : audit.missing()) {
          ADD_FAILURE() << entry.path().filename().string() << ": no Chinese for the template: " << templ;
        }
        lessons.insert(report.lesson_number);
      }
    }
  }
  EXPECT_GE(files, 2 * course().size() - 2) << "every lesson's reference run, and the other machines' runs";
  for (const auto& e : course()) EXPECT_EQ(lessons.count(e.number), 1u) << "no run of lesson " << e.number;
}

// A grader's terminal at 60, 80 and 120 columns: `compare` against a run whose every figure is
// out of tolerance and which was disturbed, and `grade` of its folder (write_class_folder).
// Nothing is cut: the long name and the reasons appear whole, wrapped.
TEST(Width, CompareAndGradeFitAt60_80And120Columns) {
  const fs::path dir = fs::path(testing::TempDir()) / "cudalab_width_class";
  const std::string shared_path = write_class_folder(dir);
  const std::string& long_name = kLongName;
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
        EXPECT_NE(words.find("disturbed: 3 other processes worked on the GPU while the lesson measured"), std::string::npos)
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
        // "由 alice 提交 · 节点 vm · NVIDIA H100": who handed it in and the node are data.
        if (line.find("提交 · 节点 ") != std::string::npos) continue;
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

// The zh help and `list`, wrapped at 60, 80 and 120 columns: no line ends with an opening
// bracket (the help's "[默认：…]" once left its "[" behind), and no line of `list` ends in the
// middle of 硬件.
TEST(Width, ChineseHelpAndListKeepBracketsAndWordsWhole) {
  testing_support::hide_gpus();
  std::vector<std::vector<std::string>> screens = {{"list"}, {"--help"}};
  for (const auto& e : course()) screens.push_back({"help", std::to_string(e.number)});
  for (const char* columns : {"60", "80", "120"}) {
    setenv("COLUMNS", columns, 1);
    for (auto args : screens) {
      args.insert(args.end(), {"--lang", "zh"});
      const Outcome o = run(args);
      const auto lines = lines_of(o.out);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string line = lines[i].substr(0, lines[i].find_last_not_of(' ') + 1);
        for (const std::string open : {"[", "(", "（"}) {
          EXPECT_FALSE(line.size() >= open.size() && line.compare(line.size() - open.size(), open.size(), open) == 0)
              << joined(args) << " at " << columns << " columns: a lone '" << open << "' ends\n" << line;
        }
        EXPECT_FALSE(line.size() >= 3 && line.compare(line.size() - 3, 3, "硬") == 0 && i + 1 < lines.size() &&
                     trimmed(lines[i + 1]).rfind("件", 0) == 0)
            << joined(args) << " at " << columns << " columns splits 硬件";
      }
    }
  }
  unsetenv("COLUMNS");
}

// The catalogues are gettext .po: the header and comments are skipped, continuation lines join,
// C escapes are undone, and a template's placeholders are filled by name.
TEST(Catalogue, ReadsGettextPo) {
  const Catalogue c = Catalogue::parse(
      "# a translator's comment\n"
      "msgid \"\"\n"
      "msgstr \"\"\n"
      "\"Content-Type: text/plain; charset=UTF-8\\n\"\n"
      "\n"
      "#. an extracted comment\n"
      "msgid \"say \\\"{word}\\\" \"\n"
      "\"twice\"\n"
      "msgstr \"说两遍\\\"{word}\\\"\"\n"
      "\n"
      "msgid \"a\\tb\"\n"
      "msgstr \"甲\\t乙\"\n",
      "test.po");
  EXPECT_EQ(c.render(msg("say \"{word}\" twice", arg("word", std::string("hi")))), "说两遍\"hi\"");
  EXPECT_EQ(c.render("a\tb"), "甲\t乙");
  EXPECT_EQ(c.find("Content-Type: text/plain; charset=UTF-8"), nullptr);  // the header is no entry
}

TEST(Catalogue, APoItCannotReadIsNamedWithItsLine) {
  for (const auto& [text, line] : std::vector<std::pair<std::string, std::string>>{
           {"msgid \"a\"\nmsgstr b\n", "test.po:2:"},
           {"msgid \"a\"\nmsgstr \"b\"\nen: c\n", "test.po:3:"},
           {"msgid \"a\\q\"\n", "test.po:1:"},
           {"\"orphan\"\n", "test.po:1:"}}) {
    try {
      (void)Catalogue::parse(text, "test.po");
      ADD_FAILURE() << text;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(line, 0), 0u) << e.what();
    }
  }
}
