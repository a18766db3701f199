// Chinese for every word cudalab prints besides the notes: section titles, labels, checks,
// "try next" lines, the CLI's words and the renderer's own. One catalogue per lesson
// (course-notes/zh/labels/NN-slug.po) and three
// shared (labels/cudalab.po, labels/cli.po, labels/exercise.po), embedded with the notes.
//
// Every text is a template with named arguments (core/message.hpp), translated before it is
// formatted, as gettext does: the catalogue is keyed by the English template (msgid), and the
// Chinese template (msgstr) names the same placeholders in its own order. A catalogue is
// gettext's .po, so translators' tools read it; `msgfmt --check` (CTest i18n.msgfmt_check)
// checks each, and i18n.templates_translated that every template in the code has an entry.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/core/message.hpp"
#include "common/report/notes.hpp"

namespace cudalab {

class Catalogue {
 public:
  // The entries of a .po text: its header (msgid "") and comments skipped, strings unescaped.
  // Throws std::runtime_error naming the line when the text is not one.
  static Catalogue parse(std::string_view text, std::string_view name);
  void append(const Catalogue& more);
  // One entry: `english` a template, `chinese` its translation.
  void add(const std::string& english, const std::string& chinese);
  // A message in Chinese: its template looked up as written (no pattern matching), its arguments
  // rendered the same way and put where the Chinese template names them. A template with no entry
  // is printed in English (and recorded by a TranslationAudit). Arguments nest at most
  // kMaxMessageDepth deep; deeper ones print their English.
  std::string render(const Message& message, int depth = 0) const;
  // The Chinese of one template as written, or null; no audit (a unit of measure has none).
  const std::string* find(const std::string& templ) const;

 private:
  std::unordered_map<std::string, std::string> exact_;
};

// The lesson's catalogue followed by the shared one; `notes_file` "" for the shared one alone.
const Catalogue& zh_catalogue(std::string_view notes_file);

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

}  // namespace cudalab
