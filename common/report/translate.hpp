// Chinese for every word cudalab prints besides the notes: section titles, labels, checks,
// "try next" lines, the CLI's words and the renderer's own. One catalogue per lesson
// (course-notes/zh/labels/NN-slug.po, or zh/NN-slug.labels.po beside a lesson's notes) and two
// shared (labels/cudalab.po, labels/cli.po), embedded with the notes. Reports keep English inside
// (JSON, stable form); text is translated as it is printed.
//
// A catalogue is gettext's .po (msgid the English, msgstr the Chinese; `msgfmt --check` passes
// on each, CTest i18n.msgfmt_check), so translators' tools read it. {} in the English matches any
// non-empty stretch (the shortest that lets the next literal piece follow); in the Chinese, {}
// takes the captures in order and {1}, {2}, ... by number. Captures are translated in turn.
// Exact entries win over patterns; among patterns the most specific (the most literal text),
// then the lesson's own catalogue over the shared one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/report/notes.hpp"
#include "common/report/report.hpp"

namespace cudalab {

class Catalogue {
 public:
  // The entries of a .po text: its header (msgid "") and comments skipped, strings unescaped.
  // Throws std::runtime_error naming the line when the text is not one.
  static Catalogue parse(std::string_view text, std::string_view name);
  void append(const Catalogue& more);
  // One entry: `english` a text or a template with {}, `chinese` its translation.
  void add(const std::string& english, const std::string& chinese);
  // nullopt when no entry matches, and for a text longer than any label (over 4 KiB). `depth`:
  // how deep inside another entry's captures this text sits (captures nest at most 6 deep).
  std::optional<std::string> translate(std::string_view text, int depth = 0) const;

 private:
  struct Pattern {
    std::vector<std::string> pieces;  // the literal text around each {}
    std::string zh;
  };
  std::optional<std::string> translate_core(std::string_view core, int depth) const;
  std::unordered_map<std::string, std::string> exact_;
  std::vector<Pattern> patterns_;
};

// The lesson's catalogue followed by the shared one; `notes_file` "" for the shared one alone.
const Catalogue& zh_catalogue(std::string_view notes_file);

// `text` in `lang`: itself for en, and wherever no entry matches.
std::string tr(Lang lang, std::string_view text, std::string_view notes_file = {});

// A copy of the report with every label, title, summary and reason in `lang`, and the words that
// count things ("copies"); params, keys, units of measure and numbers stay as they are.
Report translate_report(const Report& report, Lang lang);

}  // namespace cudalab
