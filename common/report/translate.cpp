#include "common/report/translate.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
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

}  // namespace

Catalogue Catalogue::parse(std::string_view text, std::string_view name) {
  Catalogue c;
  std::optional<std::string> english;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string_view::npos) stop = text.size();
    const std::string line(text.substr(start, stop - start));
    start = stop + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#') continue;
    if (line.rfind("en: ", 0) == 0 && !english) {
      english = trimmed(line.substr(4));
    } else if (line.rfind("zh: ", 0) == 0 && english) {
      // Both sides without their indent: translate() looks up the text without it and puts the
      // text's own indent back ("  0    success" in --help's exit codes).
      if (english->find("{}") == std::string::npos) {
        c.exact_.emplace(*english, trimmed(line.substr(4)));
      } else {
        c.patterns_.push_back({split_placeholders(*english), trimmed(line.substr(4))});
      }
      english.reset();
    } else {
      throw std::runtime_error(std::string(name) + ":" + std::to_string(line_number) +
                               ": expected \"en: ...\" and then \"zh: ...\"");
    }
  }
  return c;
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
