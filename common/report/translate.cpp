#include "common/report/translate.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "common/core/text_format.hpp"
#include "common/report/art.hpp"

namespace cudalab {

namespace {

constexpr std::string_view kWhitespace = " \t";
// Every text the catalogue translates is a label a lesson wrote: a few hundred characters at
// most, its captures nested a few deep ("launch-bound case, graph, every batch: ..."). A longer
// text, or captures nested deeper, is left as it is, so a crafted label in a run file costs
// linear time and bounded stack, whatever the patterns.
constexpr std::size_t kMaxTranslatedBytes = 4096;
constexpr int kMaxCaptureDepth = 6;

std::string trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

std::vector<std::string> split_placeholders(const std::string& text) {
  std::vector<std::string> pieces{""};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{}") == 0) {
      pieces.emplace_back();
      ++i;
    } else {
      pieces.back() += text[i];
    }
  }
  return pieces;
}

// The captures of `text` against the literal pieces, or nullopt.
std::optional<std::vector<std::string>> match(const std::vector<std::string>& pieces, std::string_view text) {
  const std::string& head = pieces.front();
  const std::string& tail = pieces.back();
  if (text.size() < head.size() + tail.size() + pieces.size() - 1) return std::nullopt;
  if (text.compare(0, head.size(), head) != 0) return std::nullopt;
  if (text.compare(text.size() - tail.size(), tail.size(), tail) != 0) return std::nullopt;
  const std::size_t end = text.size() - tail.size();
  std::size_t pos = head.size();
  std::vector<std::string> captures;
  for (std::size_t i = 1; i + 1 < pieces.size(); ++i) {
    const std::size_t at = text.find(pieces[i], pos + 1);
    if (at == std::string_view::npos || at + pieces[i].size() > end) return std::nullopt;
    captures.emplace_back(text.substr(pos, at - pos));
    pos = at + pieces[i].size();
  }
  if (pos >= end) return std::nullopt;
  captures.emplace_back(text.substr(pos, end - pos));
  return captures;
}

// The Chinese template with its {} and {N} filled.
std::string fill(const std::string& zh, const std::vector<std::string>& captures) {
  std::string out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < zh.size(); ++i) {
    const std::size_t close = zh[i] == '{' ? zh.find('}', i) : std::string::npos;
    const std::string inside = close == std::string::npos ? "" : zh.substr(i + 1, close - i - 1);
    const bool numbered = !inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos;
    if (close != std::string::npos && (inside.empty() || numbered)) {
      const std::size_t index = numbered ? std::stoul(inside) - 1 : next++;
      if (index < captures.size()) out += captures[index];
      i = close;
    } else {
      out += zh[i];
    }
  }
  return out;
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
  // Both sides without their indent: translate() looks up the text without it and puts the
  // text's own indent back ("  0    success" in --help's exit codes).
  const std::string en = trimmed(english), zh = trimmed(chinese);
  if (en.find("{}") == std::string::npos) {
    exact_.emplace(en, zh);
  } else {
    patterns_.push_back({split_placeholders(en), zh});
  }
}

void Catalogue::append(const Catalogue& more) {
  for (const auto& [en, zh] : more.exact_) exact_.emplace(en, zh);  // ours win
  patterns_.insert(patterns_.end(), more.patterns_.begin(), more.patterns_.end());
}

std::optional<std::string> Catalogue::translate_core(std::string_view core, int depth) const {
  if (const auto it = exact_.find(std::string(core)); it != exact_.end()) return it->second;
  // The most specific pattern wins: the one that matches with the most literal text ("predicted
  // {} {}" over a lesson's "{} us"); among equals, the first (the lesson's own before the shared).
  const Pattern* best = nullptr;
  std::optional<std::vector<std::string>> best_captures;
  std::size_t best_literal = 0;
  for (const auto& p : patterns_) {
    std::size_t literal = 0;
    for (const auto& piece : p.pieces) literal += piece.size();
    if (best != nullptr && literal <= best_literal) continue;
    auto captures = match(p.pieces, core);
    if (!captures) continue;
    best = &p;
    best_captures = std::move(captures);
    best_literal = literal;
  }
  if (best == nullptr) return std::nullopt;
  if (depth < kMaxCaptureDepth) {
    for (auto& capture : *best_captures) capture = translate(capture, depth + 1).value_or(capture);
  }
  return fill(best->zh, *best_captures);
}

std::optional<std::string> Catalogue::translate(std::string_view text, int depth) const {
  if (text.size() > kMaxTranslatedBytes) return std::nullopt;
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t last = text.find_last_not_of(kWhitespace);
  const auto core = translate_core(text.substr(first, last - first + 1), depth);
  if (!core) return std::nullopt;
  return std::string(text.substr(0, first)) + *core + std::string(text.substr(last + 1));
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

std::string Catalogue::render(const Message& message, int depth) const {
  if (message.is_verbatim() || message.empty()) return message.text();
  if (depth >= kMaxMessageDepth) return message.en();
  std::string templ = message.text();
  // Only a template with words of its own is looked up: "{noise}, {outliers}" is punctuation.
  if (has_words(templ)) {
    const std::size_t first = templ.find_first_not_of(kWhitespace);
    const std::size_t last = templ.find_last_not_of(kWhitespace);
    const auto it = exact_.find(templ.substr(first, last - first + 1));
    audit(templ, it != exact_.end());
    if (it != exact_.end()) templ = templ.substr(0, first) + it->second + templ.substr(last + 1);
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

std::string tr(Lang lang, std::string_view text, std::string_view notes_file) {
  if (lang == Lang::en) return std::string(text);
  return zh_catalogue(notes_file).translate(text).value_or(std::string(text));
}

namespace {

// A section's drawing: plain lines translated whole, boxes cell by cell and drawn again, since a
// translation changes the widths the box was drawn for.
void translate_art(std::vector<std::string>& art, const std::function<void(std::string&)>& t) {
  std::vector<std::string> out;
  for (auto& piece : parse_art(art)) {
    if (!piece.boxed) {
      t(piece.line);
      out.push_back(std::move(piece.line));
      continue;
    }
    for (auto& row : piece.rows) {
      for (auto& cell : row) t(cell);
    }
    for (auto& line : draw_box(piece.rows)) out.push_back(std::move(line));
  }
  art = std::move(out);
}

}  // namespace

Report translate_report(const Report& report, Lang lang) {
  Report r = report;
  if (lang == Lang::en) return r;
  const Catalogue& c = zh_catalogue(report.notes_file());
  const auto t = [&c](std::string& text) {
    if (auto zh = c.translate(text)) text = std::move(*zh);
  };
  t(r.lesson_title);
  t(r.headline);
  for (auto& w : r.warnings) t(w);
  for (auto& e : r.environment) t(e.summary);
  for (auto& s : r.sections) {
    t(s.title);
    translate_art(s.art, t);
    for (auto& f : s.facts) t(f.label), t(f.value), t(f.note);
    // A counted unit is a word ("copies", "runs") and has a catalogue entry; units of measure have none.
    for (auto& m : s.metrics) t(m.label), t(m.note), t(m.unit);
    for (auto& table : s.tables) {
      for (auto& column : table.columns) t(column);
      for (auto& row : table.rows) {
        for (auto& cell : row) t(cell.text);
      }
    }
    for (auto& plot : s.plots) {
      t(plot.title), t(plot.x_label), t(plot.y_label);
      for (auto& series : plot.series) t(series.name);
    }
  }
  for (auto& check : r.checks) t(check.summary), t(check.detail);
  for (auto& next : r.try_next) t(next.why);
  for (auto& timeline : r.timelines) {
    t(timeline.title);
    for (auto& lane : timeline.lanes) t(lane.name);
  }
  return r;
}

}  // namespace cudalab
