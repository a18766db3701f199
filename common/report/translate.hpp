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

#include "common/core/message.hpp"
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
  // A message in Chinese: its template looked up as written (no pattern matching), its arguments
  // rendered the same way and put where the Chinese template names them. A template with no entry
  // is printed in English (and recorded by a TranslationAudit). Arguments nest at most
  // kMaxMessageDepth deep; deeper ones print their English.
  std::string render(const Message& message, int depth = 0) const;

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
// A message in `lang`: translated, then formatted (Catalogue::render).
std::string tr(Lang lang, const Message& message, std::string_view notes_file = {});
// A string literal is a template: looked up as written.
inline std::string tr(Lang lang, const char* templ, std::string_view notes_file = {}) {
  return tr(lang, Message(templ), notes_file);
}
inline constexpr int kMaxMessageDepth = 8;

// While one lives, every template rendered in Chinese that has no entry is recorded: the zh tests
// render everything a user can see and fail on what is listed. One at a time.
class TranslationAudit {
 public:
  TranslationAudit();
  ~TranslationAudit();
  TranslationAudit(const TranslationAudit&) = delete;
  TranslationAudit& operator=(const TranslationAudit&) = delete;
  // The templates with no Chinese, sorted, each once.
  std::vector<std::string> missing() const;
  // How many templates were looked up (a test that rendered nothing proves nothing).
  std::size_t looked_up() const;
};

// A copy of the report with every label, title, summary and reason in `lang`, and the words that
// count things ("copies"); params, keys, units of measure and numbers stay as they are.
Report translate_report(const Report& report, Lang lang);

}  // namespace cudalab
