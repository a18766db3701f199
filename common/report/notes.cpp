#include "common/report/notes.hpp"

#include <cstdlib>

#include "common/core/errors.hpp"
#include "common/report/notes_claims.hpp"
#include "common/report/notes_figures.hpp"

namespace cudalab {

namespace {

constexpr std::string_view kMarkerOpen = "<!-- key:";
constexpr std::string_view kMarkerClose = "-->";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The key of a marker line, or "" when the line is not a marker.
std::string_view marker_key(std::string_view line) {
  line = trim(line);
  if (line.substr(0, kMarkerOpen.size()) != kMarkerOpen) return {};
  if (line.size() < kMarkerOpen.size() + kMarkerClose.size()) return {};
  if (line.substr(line.size() - kMarkerClose.size()) != kMarkerClose) return {};
  return trim(line.substr(kMarkerOpen.size(), line.size() - kMarkerOpen.size() - kMarkerClose.size()));
}

template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    fn(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

const char* find_file(Lang lang, std::string_view file) {
  for (std::size_t i = 0; i < detail::kEmbeddedNoteCount; ++i) {
    const auto& note = detail::kEmbeddedNotes[i];
    if (note.lang == std::string_view(lang_name(lang)) && note.file == file) return note.text;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string_view> embedded_file(std::string_view folder, std::string_view file) {
  for (std::size_t i = 0; i < detail::kEmbeddedNoteCount; ++i) {
    const auto& note = detail::kEmbeddedNotes[i];
    if (note.lang == folder && note.file == file) return std::string_view(note.text);
  }
  return std::nullopt;
}

std::optional<std::string> notes_section(Lang lang, std::string_view file, std::string_view key) {
  const char* text = find_file(lang, file);
  if (text == nullptr) return std::nullopt;
  auto section = detail::find_section(text, key);
  if (!section) return section;
  return render_notes_text(*section, builtin_figures(lang, file)).text;
}

std::optional<std::string> notes_section(Lang lang, const Report& run, std::string_view key) {
  const std::string file = run.notes_file();
  const char* text = find_file(lang, file);
  if (text == nullptr) return std::nullopt;
  auto section = detail::find_section(text, key);
  if (!section) return section;
  return render_notes_text(*section, run_figures(lang, run)).text;
}

std::optional<std::string> notes_section_source(Lang lang, std::string_view file, std::string_view key) {
  const char* text = find_file(lang, file);
  return text == nullptr ? std::nullopt : detail::find_section(text, key);
}

std::vector<std::string> notes_keys(Lang lang, std::string_view file) {
  const char* text = find_file(lang, file);
  return text ? detail::section_keys(text) : std::vector<std::string>{};
}

namespace detail {

std::optional<std::string> find_section(std::string_view text, std::string_view key) {
  bool inside = false;
  bool found = false;
  bool heading_skipped = false;
  std::string body;
  for_each_line(text, [&](std::string_view line) {
    const std::string_view k = marker_key(line);
    if (!k.empty()) {
      inside = (k == key);
      found = found || inside;
      heading_skipped = false;
      return;
    }
    if (!inside) return;
    if (!heading_skipped && trim(line).empty()) return;  // blank lines before the heading
    if (!heading_skipped && line.substr(0, 1) == "#") {
      heading_skipped = true;
      return;
    }
    heading_skipped = true;
    body.append(line);
    body.push_back('\n');
  });
  if (!found) return std::nullopt;
  body.erase(0, body.find_first_not_of('\n') == std::string::npos ? body.size() : body.find_first_not_of('\n'));
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  return body;
}

std::vector<std::string> section_keys(std::string_view text) {
  std::vector<std::string> keys;
  for_each_line(text, [&](std::string_view line) {
    const std::string_view k = marker_key(line);
    if (!k.empty()) keys.emplace_back(k);
  });
  return keys;
}

}  // namespace detail
}  // namespace cudalab
