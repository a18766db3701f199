// The claims ledger (course-notes/claims.txt): every lesson's notes, en and zh, rendered against
// every run this checkout ships of that lesson (its reference run and runs/other-machines/) and
// against runs made up at the edges of each condition. The notes may print a claim's words only
// where the ledger's condition for them is true for the run they are shown with.
//
// The ledger is a second entry beside the notes' {{if}} blocks: a block chooses the form to
// print, the ledger says when those words are true, and the two are written apart so that a block
// with the wrong condition, or a claim printed outside any block, fails here. A lint finds the
// sentences that compare a figure of the run without a block; each must be in the ledger.
// tests/unit/data/claims-before.txt keeps the sentences as they stood before issue 45: each must
// fail against a shipped run or an edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "test_source_dir.hpp"

#include "common/report/notes_claims.hpp"
#include "common/report/saved_run.hpp"
#include "test_support.hpp"

using namespace cudalab;
using namespace cudalab::testing_support;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const fs::path kSource = CUDALAB_SOURCE_DIR;

// Text without any blank, so that words match across the notes' line breaks in both languages.
std::string squeezed(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out += c;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The registered lessons' numbers: the course table is the only list of lessons.
std::vector<int> lesson_numbers() {
  std::vector<int> numbers;
  for (const auto& e : course()) numbers.push_back(e.number);
  return numbers;
}

// One ledger line: NN LANG "words" when CONDITION, or NN LANG "words" not-a-claim: REASON.
struct LedgerEntry {
  int lesson = 0;
  Lang lang = Lang::en;
  std::string words;      // as the notes write them, before their figures are expanded
  std::string condition;  // empty for not-a-claim
  std::string reason;     // for not-a-claim
  int line = 0;
};

// One line of the ledger, or of a "claim:" line of claims-before.txt given its "NN LANG " head.
LedgerEntry parse_entry(const std::string& line, int number, const std::string& where) {
  LedgerEntry e;
  e.line = number;
  const auto open = line.find('"');
  const auto close = line.rfind('"');
  const std::string head = line.substr(0, open == std::string::npos ? 0 : open);
  const std::string tail = close == std::string::npos || close <= open ? "" : line.substr(close + 1);
  e.lesson = std::atoi(head.c_str());
  const std::vector<int> numbers = lesson_numbers();
  e.lang = head.find(" zh") != std::string::npos ? Lang::zh : Lang::en;
  if (!tail.empty()) e.words = line.substr(open + 1, close - open - 1);
  if (starts_with(tail, " when ")) e.condition = tail.substr(6);
  if (starts_with(tail, " not-a-claim: ")) e.reason = tail.substr(14);
  EXPECT_TRUE(std::count(numbers.begin(), numbers.end(), e.lesson) == 1 && (head.find(" en") != std::string::npos || e.lang == Lang::zh) &&
              squeezed(e.words).size() >= 6 && (e.condition.empty() != e.reason.empty()))
      << where << ":" << number << ": NN en|zh \"words\" when CONDITION, or not-a-claim: WHY";
  return e;
}

std::vector<LedgerEntry> read_ledger() {
  std::vector<LedgerEntry> ledger;
  std::ifstream in(kSource / "course-notes" / "claims.txt");
  EXPECT_TRUE(in) << "course-notes/claims.txt";
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line[0] != '#') ledger.push_back(parse_entry(line, number, "claims.txt"));
  }
  return ledger;
}

// A lesson's notes file, course-notes/LANG/NN-slug.md.
fs::path notes_path(int lesson, Lang lang) {
  return kSource / "course-notes" / (lang == Lang::en ? "en" : "zh") / (reference_run_name(lesson) + ".md");
}

struct NamedRun {
  std::string name;
  Report run;
};

Report run_from(const fs::path& path) { return load_runs(path.string()).front(); }

// The runs this checkout ships of a lesson: its reference run, then those of other machines.
std::vector<NamedRun> shipped_runs(int lesson) {
  std::vector<NamedRun> runs;
  const fs::path ref = reference_run_name(lesson) + ".json";
  runs.push_back({"runs/" + ref.string(), run_from(kSource / "course-notes" / "runs" / ref)});
  const std::string prefix = ref.stem().string();
  std::vector<fs::path> others;
  for (const auto& f : fs::directory_iterator(kSource / "course-notes" / "runs" / "other-machines")) {
    if (starts_with(f.path().filename().string(), prefix) && f.path().extension() == ".json") others.push_back(f.path());
  }
  std::sort(others.begin(), others.end());
  for (const auto& p : others) runs.push_back({"runs/other-machines/" + p.filename().string(), run_from(p)});
  return runs;
}

// A comparison of a condition, split at its operator: "a >= 0.5 * b" is {"a", ">=", 0.5, "b"}.
struct Comparison {
  std::string left, op, right;
  double factor = 1;
};

std::vector<Comparison> comparisons_of(const std::string& condition) {
  std::vector<Comparison> out;
  std::string rest = condition;
  // "and" and "or" both separate comparisons; which binds how does not matter for the edges.
  for (const std::string_view joiner : {" and ", " or "}) {
    std::string replaced;
    for (std::size_t at = 0;;) {
      const auto next = rest.find(joiner, at);
      replaced += rest.substr(at, next - at);
      if (next == std::string::npos) break;
      replaced += '\n';
      at = next + joiner.size();
    }
    rest = replaced;
  }
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto end = std::min(rest.find('\n', start), rest.size());
    const std::string part = rest.substr(start, end - start);
    start = end + 1;
    for (const char* op : {" <= ", " >= ", " == ", " != ", " < ", " > "}) {
      const auto at = part.find(op);
      if (at == std::string::npos) continue;
      Comparison c{part.substr(0, at), std::string(op).substr(1, std::string(op).size() - 2), part.substr(at + std::string(op).size())};
      if (const auto star = c.right.find(" * "); star != std::string::npos && c.right.find('(') > star) {
        c.factor = std::atof(c.right.substr(0, star).c_str());
        c.right = c.right.substr(star + 3);
      }
      out.push_back(c);
      break;
    }
  }
  return out;
}

// Runs made up from `base` at the edges of each comparison whose left side is one of its metrics
// (a key, or a key with @min, @max): that metric's samples scaled so the left side reads half and
// one and a half times the right side. Comparisons of facts, checks and computed figures on the
// left make no edge runs.
std::vector<NamedRun> edge_runs(const NamedRun& base, const std::vector<std::string>& conditions) {
  std::vector<NamedRun> runs;
  std::set<std::string> made;
  for (const auto& condition : conditions) {
    for (const auto& c : comparisons_of(condition)) {
      const std::string key = c.left.substr(0, c.left.find('@'));
      if (base.run.find_metric(key) == nullptr || c.left.find("@predicted") != std::string::npos) continue;
      const FigureSource source = run_figures(Lang::en, base.run);
      std::string why;
      const auto left = figure_value(c.left, source, why);
      std::optional<double> right;
      if (const auto r = figure_value(c.right, source, why); r && left) right = figure_in_unit(*r, left->unit);
      if (!right) right = std::atof(c.right.c_str());
      if (!left || left->value == 0 || *right == 0) continue;
      for (const double edge : {0.5, 1.5}) {
        const std::string name = base.name + " with " + key + " at " + std::to_string(edge).substr(0, 3) + " × (" +
                                 std::to_string(c.factor).substr(0, 4) + " × " + c.right + ")";
        if (!made.insert(name).second) continue;
        NamedRun edge_run{name, base.run};
        const double scale = edge * c.factor * *right / left->value;
        for (auto& section : edge_run.run.sections) {
          for (auto& m : section.metrics) {
            if (m.key != key) continue;
            for (double& v : m.samples) v *= scale;
          }
        }
        runs.push_back(std::move(edge_run));
      }
    }
  }
  return runs;
}

// The notes' {{if}} blocks cut out (nesting counted), so that what is left is what the notes
// print whatever the run.
std::string outside_blocks(const std::string& text) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 5, "{{if ") == 0) {
      ++depth;
    } else if (text.compare(i, 7, "{{end}}") == 0 && depth > 0) {
      --depth;
      i += 7;
      continue;
    }
    if (depth == 0) out += text[i];
    ++i;
  }
  return out;
}

// The notes with the marks of their blocks taken out and every form's words kept, one after
// another: the words of a ledger line may run from before a block into one of its forms.
std::string without_block_marks(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const bool mark = text.compare(i, 5, "{{if ") == 0 || text.compare(i, 7, "{{elif ") == 0 ||
                      text.compare(i, 8, "{{else}}") == 0 || text.compare(i, 11, "{{unknown}}") == 0 ||
                      text.compare(i, 7, "{{end}}") == 0;
    const auto close = mark ? text.find("}}", i) : std::string::npos;
    if (close != std::string::npos) {
      i = close + 2;
      continue;
    }
    out += text[i++];
  }
  return out;
}

// The lint: sentences of the English notes, outside any block and comment, that quote a figure of
// the run (not a const, param, device or run citation) beside a word that compares. Each is a
// claim about the run unless the ledger says otherwise.
const std::array<std::string_view, 34> kComparing = {
    "longer",  " shorter", "faster",   "slower", "more than", "less than", "fewer than", " near ",  "close to",
    " large",  " small",   "twice",    " half",  "agree",     "same as",   "exceed",     " beat",   " win",
    " lose",   " loses",   " above",   " below", "most of",   " hides",    " holds",     "matches", "much ",
    " far ",   "only in part", "confirm", "contradict", "as long as", "as fast as", "the gain"};

std::vector<std::string> comparing_sentences(const std::string& notes) {
  std::string text = outside_blocks(notes);
  for (auto open = text.find("<!--"); open != std::string::npos; open = text.find("<!--", open)) {
    text.erase(open, text.find("-->", open) == std::string::npos ? std::string::npos : text.find("-->", open) + 3 - open);
  }
  std::vector<std::string> sentences;
  std::string sentence;
  for (std::size_t i = 0; i < text.size(); ++i) {
    sentence += text[i] == '\n' ? ' ' : text[i];
    const bool ends = (text[i] == '.' || text[i] == ';' || text[i] == '?') &&
                      (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n');
    if (!ends && i + 1 != text.size()) continue;
    bool quotes_run = false;
    for (auto at = sentence.find("{{"); at != std::string::npos; at = sentence.find("{{", at + 2)) {
      const std::string_view ref = std::string_view(sentence).substr(at + 2);
      quotes_run = quotes_run || !(starts_with(ref, "const:") || starts_with(ref, "param:") ||
                                   starts_with(ref, "run:") || starts_with(ref, "device:"));
    }
    const bool compares = std::any_of(kComparing.begin(), kComparing.end(),
                                      [&](std::string_view w) { return sentence.find(w) != std::string::npos; });
    if (quotes_run && compares) sentences.push_back(sentence);
    sentence.clear();
  }
  return sentences;
}

// What the ledger finds wrong with `notes` (of lesson `lesson`, in `lang`) shown with `run`: one
// line per claim printed whose condition is not true for it, or a malformed block.
std::vector<std::string> false_claims(const std::string& notes, int lesson, Lang lang, const NamedRun& run,
                                      const std::vector<LedgerEntry>& ledger) {
  std::vector<std::string> problems;
  const FigureSource source = run_figures(lang, run.run);
  const ClaimedText chosen = choose_claims(notes, source);
  for (const auto& e : chosen.errors) problems.push_back(run.name + ": " + e);
  const std::string printed = squeezed(chosen.text);
  for (const auto& entry : ledger) {
    if (entry.lesson != lesson || entry.lang != lang || entry.condition.empty()) continue;
    if (printed.find(squeezed(entry.words)) == std::string::npos) continue;
    std::string why, error;
    const Truth truth = evaluate_condition(entry.condition, source, why, error);
    if (truth == Truth::yes) continue;
    problems.push_back(run.name + ": prints \"" + entry.words + "\" (claims.txt:" + std::to_string(entry.line) +
                       "), but " + entry.condition + (truth == Truth::no ? " is false" : " cannot be told: " + why + error));
  }
  return problems;
}

std::vector<std::string> conditions_of(int lesson, const std::vector<LedgerEntry>& ledger) {
  std::vector<std::string> out;
  for (const auto& e : ledger) {
    if (e.lesson == lesson && !e.condition.empty()) out.push_back(e.condition);
  }
  return out;
}

// Every run a lesson's notes are checked against: the shipped ones and the edges of each
// condition the ledger gives for the lesson, made from its reference run.
std::vector<NamedRun> runs_to_check(int lesson, const std::vector<LedgerEntry>& ledger) {
  auto runs = shipped_runs(lesson);
  auto edges = edge_runs(runs.front(), conditions_of(lesson, ledger));
  runs.insert(runs.end(), std::make_move_iterator(edges.begin()), std::make_move_iterator(edges.end()));
  return runs;
}

}  // namespace

TEST(ClaimsLedger, EveryLessonsNotesPrintOnlyClaimsTrueForTheRunTheyAreShownWith) {
  const auto ledger = read_ledger();
  for (const int lesson : lesson_numbers()) {
    const auto runs = runs_to_check(lesson, ledger);
    for (const Lang lang : {Lang::en, Lang::zh}) {
      const std::string notes = read_text(notes_path(lesson, lang));
      ASSERT_FALSE(notes.empty()) << lesson;
      for (const auto& run : runs) {
        for (const auto& problem : false_claims(notes, lesson, lang, run, ledger)) {
          ADD_FAILURE() << "lesson " << lesson << (lang == Lang::en ? " en, " : " zh, ") << problem;
        }
      }
    }
  }
}

// The edges are really made: a condition over a metric gives two runs on either side of it.
TEST(ClaimsLedger, EdgeRunsLieOnEitherSideOfTheirCondition) {
  const auto ledger = read_ledger();
  const auto runs = runs_to_check(2, ledger);
  const std::string condition = "async_call.pageable.d2h >= ratio(16MiB, bw.pageable.d2h.16MiB)";
  std::set<Truth> seen;
  for (const auto& run : runs) {
    if (run.name.find(" with async_call.pageable.d2h ") == std::string::npos) continue;
    std::string why, error;
    seen.insert(evaluate_condition(condition, run_figures(Lang::en, run.run), why, error));
    EXPECT_TRUE(error.empty()) << error;
  }
  EXPECT_EQ(seen, (std::set<Truth>{Truth::no, Truth::yes}));
}

// A lesson's blocks decide against the run the lesson ships as its reference: its claims never
// print "(this run cannot tell)" there.
TEST(ClaimsLedger, EachReferenceRunDecidesItsOwnLessonsClaims) {
  for (const int lesson : lesson_numbers()) {
    const auto runs = shipped_runs(lesson);
    for (const Lang lang : {Lang::en, Lang::zh}) {
      const ClaimedText chosen = choose_claims(read_text(notes_path(lesson, lang)), run_figures(lang, runs.front().run));
      for (const auto& claim : chosen.claims) {
        EXPECT_FALSE(claim.cannot_tell) << "lesson " << lesson << ": " << claim.conditions.back().condition << ": "
                                        << claim.conditions.back().why;
      }
    }
  }
}

// Each sentence the lint finds in the English notes is in the ledger: as a claim with its
// condition (checked above), or as not a claim, with why.
TEST(ClaimsLedger, EverySentenceThatComparesAFigureOfTheRunIsInTheLedger) {
  const auto ledger = read_ledger();
  for (const int lesson : lesson_numbers()) {
    for (const auto& sentence : comparing_sentences(read_text(notes_path(lesson, Lang::en)))) {
      const std::string s = squeezed(sentence);
      const bool listed = std::any_of(ledger.begin(), ledger.end(), [&](const LedgerEntry& e) {
        return e.lesson == lesson && e.lang == Lang::en && s.find(squeezed(e.words)) != std::string::npos;
      });
      EXPECT_TRUE(listed) << "lesson " << lesson << " compares a figure of the run outside any {{if}} block, and "
                          << "course-notes/claims.txt does not list it:\n  " << sentence;
    }
  }
}

// A claim in English has its Chinese form in the ledger, under the same condition.
TEST(ClaimsLedger, EveryConditionOfTheEnglishNotesIsCheckedInChineseToo) {
  const auto ledger = read_ledger();
  for (const auto& en : ledger) {
    if (en.lang != Lang::en || en.condition.empty()) continue;
    const bool in_zh = std::any_of(ledger.begin(), ledger.end(), [&](const LedgerEntry& zh) {
      return zh.lang == Lang::zh && zh.lesson == en.lesson && zh.condition == en.condition;
    });
    EXPECT_TRUE(in_zh) << "claims.txt:" << en.line << ": no zh words under " << en.condition;
  }
}

// Every ledger line still names words the notes hold: a claim cut from the notes goes from the
// ledger too, so the ledger cannot pass by listing words nobody prints.
TEST(ClaimsLedger, EveryLedgerLineNamesWordsOfItsNotes) {
  for (const auto& e : read_ledger()) {
    const std::string notes = squeezed(without_block_marks(read_text(notes_path(e.lesson, e.lang))));
    EXPECT_NE(notes.find(squeezed(e.words)), std::string::npos)
        << "claims.txt:" << e.line << ": \"" << e.words << "\" is not in lesson " << e.lesson << "'s notes";
  }
}

// The sentences as they stood before issue 45 (tests/unit/data/claims-before.txt): each is a
// fragment of a lesson's notes that the ledger, with the fragment's own "claim:" lines for words
// the notes no longer hold, must catch against a shipped run or an edge.
TEST(ClaimsLedger, TheSentencesAsTheyStoodBeforeFail) {
  const auto ledger = read_ledger();
  std::ifstream in(kSource / "tests" / "unit" / "data" / "claims-before.txt");
  ASSERT_TRUE(in);
  struct Fragment {
    std::string head, text;
    std::vector<LedgerEntry> claims;
  };
  std::vector<Fragment> fragments;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (starts_with(line, "#")) continue;
    if (starts_with(line, "== ")) {
      fragments.push_back({line.substr(3), "", {}});
    } else if (!fragments.empty() && starts_with(line, "claim: ")) {
      fragments.back().claims.push_back(
          parse_entry(fragments.back().head.substr(0, 6) + line.substr(7), number, "claims-before.txt"));
    } else if (!fragments.empty()) {
      fragments.back().text += line + "\n";
    }
  }
  EXPECT_GE(fragments.size(), 6u) << "the six sentences issue 45 lists, at least";
  for (const auto& f : fragments) {
    const int lesson = std::atoi(f.head.c_str());
    const Lang lang = f.head.substr(2, 4) == " zh:" ? Lang::zh : Lang::en;
    auto with_own = ledger;
    with_own.insert(with_own.end(), f.claims.begin(), f.claims.end());
    std::vector<std::string> caught;
    for (const auto& run : runs_to_check(lesson, with_own)) {
      for (auto& p : false_claims(f.text, lesson, lang, run, with_own)) caught.push_back(std::move(p));
    }
    EXPECT_FALSE(caught.empty()) << "the ledger no longer catches the sentence as it stood before: " << f.head;
    if (!caught.empty()) std::cout << "[ caught  ] " << f.head << "\n            " << caught.front() << "\n";
  }
}
