#include "common/report/translate.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

namespace cudalab {

namespace {

constexpr std::string_view kWhitespace = " \t";

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

// The text of one quoted .po string, `"..."` with C escapes, or nullopt when it is not one.
std::optional<std::string> po_string(std::string_view quoted) {
  const std::size_t first = quoted.find_first_not_of(" \t");
  const std::size_t last = quoted.find_last_not_of(" \t\r");
  if (first == std::string_view::npos || last <= first || quoted[first] != '"' || quoted[last] != '"') {
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = first + 1; i < last; ++i) {
    if (quoted[i] == '"') return std::nullopt;  // an unescaped quote inside
    if (quoted[i] != '\\') {
      out += quoted[i];
      continue;
    }
    if (++i >= last) return std::nullopt;
    switch (quoted[i]) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default: return std::nullopt;  // no other escape is used
    }
  }
  return out;
}

}  // namespace

Catalogue Catalogue::parse(std::string_view text, std::string_view name) {
  // The catalogues are built into the binary, so they are parsed from memory; gettext's own
  // reader (libgettextpo) reads only files. What is read is the subset msgfmt --check accepts
  // and the catalogues use: comments, msgid, msgstr and their continuation lines.
  Catalogue c;
  std::size_t line_number = 0;
  enum class In { nothing, msgid, msgstr } in = In::nothing;
  std::string msgid, msgstr;
  const auto unreadable = [&] {
    return std::runtime_error(std::string(name) + ":" + std::to_string(line_number) +
                              ": expected msgid \"...\", then msgstr \"...\" (gettext .po)");
  };
  const auto quoted = [&](std::string_view part) {
    auto value = po_string(part);
    if (!value) throw unreadable();
    return std::move(*value);
  };
  const auto finish = [&] {
    if (in == In::msgstr && !msgid.empty()) c.add(msgid, msgstr);  // msgid "" is the header
    in = In::nothing;
  };
  for (std::size_t start = 0; start < text.size();) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string_view::npos) stop = text.size();
    const std::string_view line = text.substr(start, stop - start);
    start = stop + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos || line[0] == '#') continue;
    if (line.rfind("msgid ", 0) == 0) {
      finish();
      msgid = quoted(line.substr(6));
      in = In::msgid;
    } else if (line.rfind("msgstr ", 0) == 0 && in == In::msgid) {
      msgstr = quoted(line.substr(7));
      in = In::msgstr;
    } else if (in != In::nothing) {
      (in == In::msgid ? msgid : msgstr) += quoted(line);  // a continuation line
    } else {
      throw unreadable();
    }
  }
  finish();
  return c;
}

void Catalogue::add(const std::string& english, const std::string& chinese) {
  // Both sides without their indent: render() looks up the template without it and puts the
  // template's own indent back ("  0    success" in --help's exit codes).
  exact_.emplace(trimmed(english), trimmed(chinese));
}

void Catalogue::append(const Catalogue& more) {
  for (const auto& [en, zh] : more.exact_) exact_.emplace(en, zh);  // ours win
}

const Catalogue& zh_catalogue(std::string_view notes_file) {
  static std::mutex mutex;
  static std::map<std::string, Catalogue, std::less<>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(notes_file); it != cache.end()) return it->second;
  Catalogue c;
  if (!notes_file.empty()) {
    if (const auto text = embedded_file("zh/labels", notes_file)) c = Catalogue::parse(*text, notes_file);
  }
  if (const auto shared = embedded_file("zh/labels", "cudalab")) c.append(Catalogue::parse(*shared, "cudalab"));
  if (const auto cli = embedded_file("zh/labels", "cli")) c.append(Catalogue::parse(*cli, "cli"));
  if (const auto exercise = embedded_file("zh/labels", "exercise")) c.append(Catalogue::parse(*exercise, "exercise"));
  return cache.emplace(std::string(notes_file), std::move(c)).first->second;
}

namespace {

// The audit's record: whether one is running, and what it found.
struct AuditRecord {
  std::mutex mutex;
  bool on = false;
  std::set<std::string> missing;
  std::size_t looked_up = 0;
};

AuditRecord& audit_record() {
  static AuditRecord record;
  return record;
}

void audit(const std::string& templ, bool found) {
  AuditRecord& a = audit_record();
  const std::lock_guard<std::mutex> lock(a.mutex);
  if (!a.on) return;
  ++a.looked_up;
  if (!found) a.missing.insert(templ);
}

// A template of placeholders and punctuation in Chinese: its separators full-width.
std::string chinese_punctuation(const std::string& templ) {
  std::string out;
  for (std::size_t i = 0; i < templ.size(); ++i) {
    const bool separator = i + 1 < templ.size() && templ[i + 1] == ' ';
    if (separator && templ[i] == ';') {
      out += "；";
    } else if (separator && templ[i] == ':') {
      out += "：";
    } else if (separator && templ[i] == ',') {
      out += "，";
    } else {
      out += templ[i];
      continue;
    }
    ++i;  // the space after it
  }
  return out;
}

}  // namespace

TranslationAudit::TranslationAudit() {
  AuditRecord& a = audit_record();
  const std::lock_guard<std::mutex> lock(a.mutex);
  a.on = true;
  a.missing.clear();
  a.looked_up = 0;
}

TranslationAudit::~TranslationAudit() {
  AuditRecord& a = audit_record();
  const std::lock_guard<std::mutex> lock(a.mutex);
  a.on = false;
}

std::vector<std::string> TranslationAudit::missing() const {
  AuditRecord& a = audit_record();
  const std::lock_guard<std::mutex> lock(a.mutex);
  return {a.missing.begin(), a.missing.end()};
}

std::size_t TranslationAudit::looked_up() const {
  AuditRecord& a = audit_record();
  const std::lock_guard<std::mutex> lock(a.mutex);
  return a.looked_up;
}

const std::string* Catalogue::find(const std::string& templ) const {
  const auto it = exact_.find(templ);
  return it == exact_.end() ? nullptr : &it->second;
}

std::string Catalogue::render(const Message& message, int depth) const {
  if (message.is_verbatim() || message.empty()) return message.text();
  if (depth >= kMaxMessageDepth) return message.en();
  std::string templ = message.text();
  const std::size_t first = templ.find_first_not_of(kWhitespace);
  if (first != std::string::npos) {
    const std::size_t last = templ.find_last_not_of(kWhitespace);
    const auto it = exact_.find(templ.substr(first, last - first + 1));
    if (it != exact_.end()) {
      templ = templ.substr(0, first) + it->second + templ.substr(last + 1);
    } else if (!has_words(templ)) {
      templ = chinese_punctuation(templ);  // "{found}: {advice}", a list joined with "; "
    }
    if (has_words(message.text())) audit(message.text(), it != exact_.end());
  }
  return substitute(templ, [&](std::string_view name, std::string& out) {
    for (const auto& a : message.args()) {
      if (a.name == name) {
        out += render(a.value, depth + 1);
        return true;
      }
    }
    return false;
  });
}

std::string tr(Lang lang, const Message& message, std::string_view notes_file) {
  if (lang == Lang::en) return message.en();
  return zh_catalogue(notes_file).render(message);
}

}  // namespace cudalab
