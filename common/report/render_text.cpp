#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/report/render.hpp"
#include "common/report/art.hpp"
#include "common/report/render_timeline.hpp"
#include "common/report/markdown.hpp"
#include "common/report/predict.hpp"
#include "common/report/provenance.hpp"
#include "common/report/render_plot.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"
#include "common/core/timeline.hpp"

namespace cudalab {

namespace {

// ANSI styles, applied only when the style asks for colour.
struct Paint {
  bool on;
  std::string wrap(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return wrap("1", t); }
  std::string dim(std::string_view t) const { return wrap("2", t); }
  std::string green(std::string_view t) const { return wrap("32", t); }
  std::string red(std::string_view t) const { return wrap("31", t); }
  std::string yellow(std::string_view t) const { return wrap("33", t); }
  std::string cyan(std::string_view t) const { return wrap("36", t); }
};

constexpr std::size_t kIndent = 2;
constexpr std::size_t kMaxProseWidth = 96;
// Column limits that keep rows inside the terminal: a fact label wider than kMaxLabelWidth, or a
// note with less than kMinNoteWidth columns beside its row, goes on lines of its own; a metric
// label gets at least kMinLabelWidth columns before it wraps.
constexpr std::size_t kMaxLabelWidth = 40;
constexpr std::size_t kMinNoteWidth = 30;
constexpr std::size_t kMinLabelWidth = 16;

class TextRenderer {
 public:
  TextRenderer(std::ostream& out, const Report& report, const TextStyle& style)
      : out_(out), report_(report), style_(style), paint_{style.color}, notes_file_(report.notes_file()) {}

  void render() {
    header();
    notes_block("idea", 0);
    for (const auto& section : report_.sections) {
      if (style_.between_sections) {
        out_.flush();
        style_.between_sections();
      }
      render_section(section);
    }
    if (style_.timelines) {
      std::string previous_notes;
      for (const auto& timeline : report_.timelines) {
        // Several pictures of one lesson usually share one explanation: print it once, first.
        render_timeline_section(timeline, timeline.notes_key != previous_notes);
        previous_notes = timeline.notes_key;
      }
    }
    guesses();
    checks();
    try_next();
  }

 private:
  // The renderer's own words in the report's language (course-notes/zh/labels/cudalab.po).
  // Words in the reader's language: the report's and the renderer's own, translated, then formatted.
  std::string tr(const Message& words) const { return cudalab::tr(style_.lang, words, notes_file_); }
  // A line prefix ("params", "warning") padded to the 10 columns the header lines share.
  std::string prefix(const char* word) const { return pad_right(tr(word), 10); }

  std::size_t prose_width(std::size_t indent) const {
    return std::max<std::size_t>(30, std::min(style_.width, kMaxProseWidth) - indent);
  }

  // One header line as it is, or folded to the terminal with a two-space hanging indent.
  template <class Paint>
  void header_line(const std::string& text, Paint paint) {
    if (display_width(text) <= style_.width) {
      out_ << paint(text) << '\n';
      return;
    }
    const auto lines = wrap_text(text, std::max<std::size_t>(style_.width, 30) - 2);
    for (std::size_t i = 0; i < lines.size(); ++i) out_ << (i == 0 ? "" : "  ") << paint(lines[i]) << '\n';
  }

  void header() {
    header_line(fmt::format("cudalab {:02d} · {} — {}", report_.lesson_number, report_.lesson_slug,
                            tr(report_.lesson_title)),
                [&](const std::string& l) { return paint_.bold(l); });
    if (style_.recorded) {
      header_line(tr(msg("recorded run · {when} · cudalab {version}", arg("when", report_.recorded_at),
                         arg("version", report_.tool_version))),
                  [&](const std::string& l) { return paint_.yellow(l); });
      if (report_.provenance) {
        std::string made;
        for (const auto& piece : provenance_pieces(*report_.provenance)) made += (made.empty() ? "" : " · ") + tr(piece);
        header_line(made, [&](const std::string& l) { return paint_.yellow(l); });
      }
    }
    for (const auto& d : report_.devices) {
      const char* line = d.copy_engines == 1 ? "device {index}  {name} · sm_{cc} · {sms} SMs · {engines} copy engine"
                                             : "device {index}  {name} · sm_{cc} · {sms} SMs · {engines} copy engines";
      header_line(tr(msg(line, arg("index", d.index), arg("name", d.name),
                         arg("cc", fmt::format("{}{}", d.cc_major, d.cc_minor)), arg("sms", d.sm_count),
                         arg("engines", d.copy_engines))),
                  [](const std::string& l) { return l; });
    }
    if (!report_.params.empty()) {
      std::string params;
      for (const auto& p : report_.params) params += fmt::format("{}{}={}", params.empty() ? "" : " ", p.name, p.value);
      const auto lines = wrap_text(params, prose_width(10));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        out_ << (i == 0 ? prefix("params") : "          ") << lines[i] << '\n';
      }
    }
    for (const auto& w : report_.warnings) {
      const auto lines = wrap_text(tr(w), prose_width(10));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        out_ << (i == 0 ? paint_.yellow(prefix("warning")) : "          ") << lines[i] << '\n';
      }
    }
    bool first = true;
    for (const auto& e : report_.environment) {
      const auto lines = wrap_text(tr(e.summary), prose_width(12));
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string mark = i > 0 ? " " : e.ok ? paint_.green("✓") : paint_.yellow("!");
        out_ << (first && i == 0 ? prefix("setting") : "          ") << mark << ' ' << lines[i] << '\n';
      }
      first = false;
    }
  }

  // A course-notes section, its Markdown rendered for the terminal (markdown.hpp).
  void notes_block(const std::string& key, std::size_t indent) {
    if (key.empty()) return;
    // The notes speak of the run they are shown with: its own figures and claims (a live run, a
    // run read from a file, or a reference run), never the reference run's in its place.
    const auto text = notes_section(style_.lang, report_, key);
    out_ << '\n';
    if (!text) {
      out_ << std::string(indent, ' ')
           << paint_.red(fmt::format("(course notes {}/{} have no section '{}')",
                                     lang_name(style_.lang), report_.notes_file(), key))
           << '\n';
      return;
    }
    const MarkdownStyle markdown{prose_width(indent), style_.color, style_.unicode};
    for (const auto& line : render_markdown(*text, markdown)) {
      out_ << (line.empty() ? "" : std::string(indent, ' ')) << line << '\n';
    }
  }

  // "── title ─────": a title wider than the rule continues on the lines below it.
  void section_title(const std::string& text) {
    out_ << '\n';
    const std::size_t rule = std::min<std::size_t>(style_.width, kMaxProseWidth);
    const auto lines = wrap_text(text, rule > 8 ? rule - 4 : rule);
    const std::string title = fmt::format("── {} ", lines[0]);
    const std::size_t w = display_width(title);
    out_ << paint_.bold(title + (w < rule ? repeat_text("─", rule - w) : "")) << '\n';
    for (std::size_t i = 1; i < lines.size(); ++i) out_ << paint_.bold("   " + lines[i]) << '\n';
  }

  // Lines of `text` wrapped at `indent` to the prose width, in one style.
  void folded(const std::string& text, std::size_t indent, const std::string& sgr) {
    for (const auto& line : wrap_text(text, prose_width(indent))) {
      out_ << std::string(indent, ' ') << paint_.wrap(sgr, line) << '\n';
    }
  }

  void render_timeline_section(const Timeline& t, bool with_notes) {
    section_title(tr(msg("timeline · {title}", arg("title", t.title))));
    if (with_notes && !t.notes_key.empty()) notes_block(t.notes_key, kIndent);
    out_ << '\n';
    TimelineStyle chart{style_.color, style_.width > kIndent ? style_.width - kIndent : style_.width, {}};
    chart.words = [this](const Message& words) { return tr(words); };
    for (const auto& line : render_timeline(t, chart)) out_ << std::string(kIndent, ' ') << line << '\n';
  }

  // The drawing's words in the reader's language; the boxes are drawn for their widths.
  std::vector<ArtText> art_text(const std::vector<ArtPiece>& art) const {
    std::vector<ArtText> out;
    for (const auto& piece : art) {
      ArtText text{piece.boxed, tr(piece.line), {}};
      for (const auto& row : piece.rows) {
        text.rows.emplace_back();
        for (const auto& cell : row) text.rows.back().push_back(tr(cell));
      }
      out.push_back(std::move(text));
    }
    return out;
  }

  void render_section(const Section& s) {
    section_title(tr(s.title));
    if (!s.notes_key.empty()) notes_block(s.notes_key, kIndent);
    if (!s.art.empty()) {
      out_ << '\n';
      const std::size_t room = style_.width > kIndent ? style_.width - kIndent : style_.width;
      for (const auto& line : draw_art(art_text(s.art), room)) out_ << std::string(kIndent, ' ') << line << '\n';
    }
    facts(s.facts);
    metrics(style_.tables ? s.metrics : unplotted(s));
    for (const auto& t : s.tables) table(t);
    for (const auto& p : s.plots) plot(p);
  }

  // Predict, observe, explain: each answer the student gave before the run against what it
  // measured and what the model said.
  void guesses() {
    if (report_.guesses.empty()) return;
    section_title(tr("your predictions"));
    out_ << '\n';
    for (const auto& g : report_.guesses) {
      for (const auto& line : wrap_runs(inline_markdown(g.question, style_.color), prose_width(kIndent))) {
        out_ << std::string(kIndent, ' ') << line << '\n';
      }
      for (const auto& line : wrap_text(feedback(g, report_, style_.lang), prose_width(kIndent + 2))) {
        out_ << std::string(kIndent + 2, ' ') << paint_.bold(line) << '\n';
      }
    }
  }

  // The metrics no plot of the section draws: a plotted metric is listed only with --table.
  static std::vector<Metric> unplotted(const Section& s) {
    std::vector<Metric> out;
    for (const auto& m : s.metrics) {
      bool drawn = false;
      for (const auto& p : s.plots) {
        for (const auto& series : p.series) {
          for (const auto& point : series.points) drawn = drawn || point.metric == m.key;
        }
      }
      if (!drawn) out.push_back(m);
    }
    return out;
  }

  void plot(const Plot& p) {
    out_ << '\n' << std::string(kIndent, ' ') << paint_.bold(tr(p.title)) << '\n';
    PlotStyle chart{style_.width > kIndent ? style_.width - kIndent : style_.width, style_.unicode, style_.color, {}};
    chart.words = [this](const Message& words) { return tr(words); };
    for (const auto& line : render_plot(p, report_, chart)) out_ << std::string(kIndent, ' ') << line << '\n';
    if (!style_.tables) out_ << std::string(kIndent, ' ') << paint_.dim(tr("(the numbers: --table, or the JSON)")) << '\n';
  }

  // label  value  note, in columns while they fit the terminal. A row whose label or value is too
  // wide for its column is stacked: the label, then its value and note indented beneath it.
  struct FactText {
    std::string label, value, note;
  };

  void facts(const std::vector<Fact>& report_facts) {
    if (report_facts.empty()) return;
    out_ << '\n';
    std::vector<FactText> facts;
    for (const auto& f : report_facts) facts.push_back({tr(f.label), tr(f.value), tr(f.note)});
    std::size_t label_w = 0, value_w = 0;
    for (const auto& f : facts) {
      label_w = std::max(label_w, display_width(f.label));
      value_w = std::max(value_w, display_width(f.value));
    }
    label_w = std::min<std::size_t>(label_w, kMaxLabelWidth);
    value_w = std::min<std::size_t>(value_w, 36);
    for (const auto& f : facts) {
      const std::size_t row_w = kIndent + label_w + 2 + std::max(value_w, display_width(f.value));
      if (display_width(f.label) > label_w || row_w > style_.width) {
        folded(f.label, kIndent, "");
        folded(f.value, kIndent + 4, "1");
        if (!f.note.empty()) folded(f.note, kIndent + 4, "2");
        continue;
      }
      std::string line = std::string(kIndent, ' ') + pad_right(f.label, label_w + 2) + paint_.bold(pad_right(f.value, value_w));
      const std::size_t note_col = row_w + 2;
      if (f.note.empty()) {
        out_ << trim_right(line) << '\n';
      } else if (style_.width >= note_col + kMinNoteWidth) {
        const auto wrapped = wrap_text(f.note, style_.width - note_col);
        out_ << line << "  " << paint_.dim(wrapped[0]) << '\n';
        for (std::size_t i = 1; i < wrapped.size(); ++i) out_ << std::string(note_col, ' ') << paint_.dim(wrapped[i]) << '\n';
      } else {
        out_ << trim_right(line) << '\n';
        folded(f.note, kIndent + 4, "2");
      }
    }
  }

  // Trailing spaces are invisible on a terminal and noise in a diff.
  static std::string trim_right(std::string text) {
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text;
  }

  // label  median unit  min max spread  notes. Labels wrap before the numbers would pass the
  // terminal's edge, and the notes fold under their row when they do not fit beside it.
  void metrics(const std::vector<Metric>& metrics) {
    if (metrics.empty()) return;
    std::size_t label_w = 0, unit_w = 0;
    for (const auto& m : metrics) {
      label_w = std::max(label_w, display_width(tr(m.label)));
      unit_w = std::max(unit_w, display_width(unit_of(m)));
    }
    const bool any_range = std::any_of(metrics.begin(), metrics.end(),
                                       [](const Metric& m) { return m.samples.size() > 1; });
    const std::size_t numbers_w = 9 + 1 + unit_w + (any_range ? 26 : 0);
    // Too narrow for a label column beside the figures: the table is stacked, each label on lines
    // of its own and its figures on an indented line beneath (an empty label column of 2).
    const bool stacked = kIndent + 2 + numbers_w + kMinLabelWidth > style_.width;
    label_w = stacked ? 2 : std::min(label_w, style_.width - kIndent - 2 - numbers_w);
    std::string heading = std::string(kIndent + label_w + 2, ' ') + paint_.dim(pad_left(tr("median"), 9));
    if (any_range) {
      heading += std::string(unit_w + 1, ' ') +
                 paint_.dim(pad_left(tr("min"), 9) + pad_left(tr("max"), 9) + pad_left(tr("spread"), 8));
    }
    out_ << '\n' << heading << '\n';
    for (const auto& m : metrics) {
      if (stacked) folded(tr(m.label), kIndent, "");
      metric_row(m, stacked ? std::string() : tr(m.label), label_w, unit_w, any_range);
    }
  }

  // A metric's unit: a unit of measure as it is, a counted word ("copies") translated.
  std::string unit_of(const Metric& m) const {
    if (style_.lang == Lang::en || m.unit.empty()) return m.unit;
    const std::string* zh = zh_catalogue(notes_file_).find(m.unit);
    return zh != nullptr ? *zh : m.unit;
  }

  void metric_row(const Metric& m, const std::string& label, std::size_t label_w, std::size_t unit_w, bool any_range) {
    const auto labels = wrap_text(label, label_w);
    std::string row = std::string(kIndent, ' ') + pad_right(labels.empty() ? "" : labels[0], label_w + 2);
    std::vector<TextRun> notes;
    if (m.samples.empty()) {
      row += pad_left("—", 9);
    } else {
      const Summary s = m.summary();
      row += paint_.bold(pad_left(format_number(s.median), 9)) + ' ' + pad_right(unit_of(m), unit_w);
      if (any_range && m.samples.size() > 1) {
        row += pad_left(format_number(s.min), 9) + pad_left(format_number(s.max), 9) +
               pad_left(fmt::format("±{:.1f}%", 50.0 * s.inlier_spread), 8);
      }
      std::string extra;
      if (m.predicted) {
        extra = tr(msg("predicted {value} {unit}", arg("value", format_number(*m.predicted)), arg("unit", unit_of(m))));
      }
      if (!m.note.empty()) extra += (extra.empty() ? "" : " · ") + tr(m.note);
      const std::string noise = tr(noise_text(m, s));
      if (!noise.empty()) notes.push_back({noise, style_.color ? "33" : ""});
      if (!extra.empty()) notes.push_back({(noise.empty() ? "" : " · ") + extra, style_.color ? "2" : ""});
    }
    std::string notes_plain;
    for (const auto& n : notes) notes_plain += n.text;
    const std::size_t row_w = kIndent + label_w + 2 + 9 + 1 + unit_w + (any_range ? 26 : 0);
    const bool beside = !notes.empty() && row_w + 2 + display_width(notes_plain) <= style_.width;
    if (beside) {
      out_ << pad_right(row, row_w) << "  ";
      for (const auto& n : notes) out_ << paint_.wrap(n.sgr, n.text);
      out_ << '\n';
    } else {
      out_ << trim_right(row) << '\n';
    }
    for (std::size_t i = 1; i < labels.size(); ++i) out_ << std::string(kIndent, ' ') << labels[i] << '\n';
    if (!beside && !notes.empty()) {
      const std::size_t indent = kIndent + 4;
      for (const auto& line : wrap_runs(notes, prose_width(indent))) {
        out_ << std::string(indent, ' ') << line << '\n';
      }
    }
  }

  // The spread column is ± half the (max - min) of the samples that are not outliers, relative
  // to the median. "noisy" when that is wider than the metric's tolerance; then how many samples
  // lie beyond kOutlierMads MADs (their indices are in the JSON).
  static Message noise_text(const Metric& m, const Summary& s) {
    std::vector<Message> parts;
    // A computed figure (one value) is noisy through what it was computed from: say so.
    if (m.noisy()) parts.emplace_back(m.noisy_samples() ? "noisy" : "noisy input");
    // Outliers matter to a reader only when they make min and max look wider than the figure is.
    if (!s.outliers.empty() && s.spread > m.tolerance()) {
      parts.push_back(msg(s.outliers.size() == 1 ? "{count} outlier" : "{count} outliers", arg("count", s.outliers.size())));
    }
    return parts.empty() ? Message() : join(parts, ", ");
  }

  // A metric's median with its unit, as its own row prints it: a table may put figures of
  // different units in one column (a lecture's claims beside this run), so each carries its own.
  std::string cell_text(const Cell& c) const {
    if (c.metric.empty()) return tr(c.text);
    const Metric* m = report_.find_metric(c.metric);
    if (m == nullptr || m->samples.empty()) return "—";
    const std::string number = format_number(m->summary().median);
    if (m->unit.empty()) return number;
    return number + (m->unit == "x" || m->unit == "%" ? "" : " ") + unit_of(*m);
  }

  // Columns as wide as their widest cell; when the table is wider than the terminal the widest
  // columns give up space and their cells wrap onto more lines.
  void table(const Table& t) {
    const std::size_t n = t.columns.size();
    std::vector<std::size_t> widths(n, 0);
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> columns;
    for (const auto& column : t.columns) columns.push_back(tr(column));
    for (std::size_t c = 0; c < n; ++c) widths[c] = display_width(columns[c]);
    for (const auto& row : t.rows) {
      std::vector<std::string> texts;
      for (std::size_t c = 0; c < row.size() && c < n; ++c) {
        texts.push_back(cell_text(row[c]));
        widths[c] = std::max(widths[c], display_width(texts.back()));
      }
      cells.push_back(std::move(texts));
    }
    const std::size_t room = style_.width > kIndent + 2 * n ? style_.width - kIndent - 2 * (n - 1) : 8 * n;
    std::size_t total = 0;
    for (auto w : widths) total += w;
    while (total > room) {
      auto widest = std::max_element(widths.begin(), widths.end());
      if (*widest <= 8) break;
      --*widest;
      --total;
    }
    if (!fits_without_cutting_words(cells, widths)) {
      stacked_table(columns, cells);
      return;
    }
    table_row(columns, widths, true);
    for (const auto& row : cells) table_row(row, widths, false);
  }

  // Whether every word of every cell fits its column, so wrapping need not cut one in two.
  static bool fits_without_cutting_words(const std::vector<std::vector<std::string>>& cells,
                                         const std::vector<std::size_t>& widths) {
    for (const auto& row : cells) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        std::size_t start = 0;
        while (start < row[c].size()) {
          std::size_t end = row[c].find(' ', start);
          if (end == std::string::npos) end = row[c].size();
          if (display_width(std::string_view(row[c]).substr(start, end - start)) > widths[c]) return false;
          start = end + 1;
        }
      }
    }
    return true;
  }

  // A table too wide for the terminal even with wrapped cells: each row's first cell on a line of
  // its own, then its other cells beneath it as "column: value".
  void stacked_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& cells) {
    out_ << '\n';
    for (const auto& row : cells) {
      if (!row.empty()) folded(row[0], kIndent, "");
      for (std::size_t c = 1; c < row.size() && c < columns.size(); ++c) {
        if (!row[c].empty()) folded(columns[c] + ": " + row[c], kIndent + 4, "");
      }
    }
  }

  // One table row, its cells wrapped to their columns: the first column left-aligned, the others
  // right-aligned, as numbers are.
  void table_row(const std::vector<std::string>& row, const std::vector<std::size_t>& widths, bool heading) {
    std::vector<std::vector<std::string>> wrapped;
    std::size_t height = 1;
    for (std::size_t c = 0; c < row.size(); ++c) {
      wrapped.push_back(wrap_text(row[c], widths[c]));
      height = std::max(height, wrapped.back().size());
    }
    if (heading) out_ << '\n';
    for (std::size_t line = 0; line < height; ++line) {
      std::string text = std::string(kIndent, ' ');
      for (std::size_t c = 0; c < wrapped.size(); ++c) {
        const std::string cell = line < wrapped[c].size() ? wrapped[c][line] : "";
        const std::string aligned = c == 0 ? pad_right(cell, widths[c]) : pad_left(cell, widths[c]);
        text += (c == 0 ? "" : "  ") + (heading ? paint_.dim(aligned) : aligned);
      }
      out_ << (heading ? text : trim_right(text)) << '\n';
    }
  }

  void checks() {
    if (report_.checks.empty()) return;
    out_ << '\n';
    for (const auto& c : report_.checks) {
      const std::string mark = c.passed ? paint_.green("✓") : paint_.red("✗");
      const std::string kind = tr(c.kind == CheckKind::verify ? "verify" : "expect");
      const auto summary = wrap_text(tr(c.summary), prose_width(10));
      out_ << mark << ' ' << pad_right(kind, 8) << summary[0] << '\n';
      for (std::size_t i = 1; i < summary.size(); ++i) out_ << std::string(10, ' ') << summary[i] << '\n';
      if (!c.passed && !c.detail.empty()) {
        for (const auto& line : wrap_text(tr(c.detail), prose_width(10))) {
          out_ << std::string(10, ' ') << paint_.dim(line) << '\n';
        }
      }
      for (const auto& key : c.depends_on) {
        const Metric* m = report_.find_metric(key);
        if (m == nullptr || !m->noisy()) continue;
        for (const auto& line : wrap_text(why_noisy(*m), prose_width(10))) {
          out_ << std::string(10, ' ') << paint_.yellow(line) << '\n';
        }
      }
    }
  }

  // Why a check's verdict may not hold on a rerun: the noisy figure it depends on, or the noisy
  // figure that a derived one (a speed-up) was computed from.
  std::string why_noisy(const Metric& m) const {
    const Metric* found = report_.noise_source(m);
    const Metric* source = found != nullptr ? found : &m;
    const Message cause = msg(
        "{metric} is noisy ({why}): this verdict may not hold on a rerun; another process on the GPU or low clocks are "
        "the usual cause",
        arg("metric", source->label), arg("why", source->noise_reason()));
    if (source == &m) return tr(cause);
    return tr(msg("{metric} is computed from {source}; {cause}", arg("metric", m.label), arg("source", source->label),
                  arg("cause", cause)));
  }

  // Live: what to run next. Recorded (cudalab show): the same commands, as things to try on a GPU.
  // A line that does not fit puts its reason under the command.
  void try_next() {
    if (report_.try_next.empty()) return;
    out_ << '\n' << paint_.bold(tr(style_.recorded ? "to try on a GPU" : "try next")) << '\n';
    std::size_t cmd_w = 0;
    for (const auto& t : report_.try_next) cmd_w = std::max(cmd_w, display_width(t.command));
    for (const auto& t : report_.try_next) {
      const std::string why = tr(t.why);
      if (2 + cmd_w + 4 + display_width(why) <= style_.width) {
        out_ << "  " << paint_.cyan(pad_right(t.command, cmd_w)) << "  " << paint_.dim("# " + why) << '\n';
        continue;
      }
      command_lines(t.command);
      for (const auto& line : wrap_text(why, prose_width(6))) out_ << "      " << paint_.dim(line) << '\n';
    }
  }

  // A command as one line, or, wider than the terminal, folded before a flag (never between a
  // flag and its value) with a shell's " \\" at each fold, so that it still pastes as one command.
  void command_lines(const std::string& command) {
    std::vector<std::string> groups;  // "--size 16MiB" is one group
    std::istringstream words(command);
    for (std::string word; words >> word;) {
      if (!groups.empty() && word[0] != '-' && groups.back().rfind("--", 0) == 0) {
        groups.back() += " " + word;
      } else {
        groups.push_back(word);
      }
    }
    const bool folds = display_width(command) + 2 > style_.width;
    const std::size_t room = style_.width > 26 ? style_.width - 6 : 20;  // "    " before, " \\" after
    std::vector<std::string> parts{""};
    for (const auto& group : groups) {
      if (folds && !parts.back().empty() && display_width(parts.back()) + 1 + display_width(group) > room) {
        parts.emplace_back();
      }
      parts.back() += (parts.back().empty() ? "" : " ") + group;
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      out_ << (i == 0 ? "  " : "    ") << paint_.cyan(parts[i] + (i + 1 < parts.size() ? " \\" : "")) << '\n';
    }
  }

  std::ostream& out_;
  const Report& report_;
  const TextStyle& style_;
  Paint paint_;
  std::string notes_file_;  // the lesson's catalogue
};

}  // namespace

void render_text(std::ostream& out, const Report& report, const TextStyle& style) {
  TextRenderer(out, report, style).render();
}

std::string render_text(const Report& report, const TextStyle& style) {
  std::ostringstream out;
  render_text(out, report, style);
  return out.str();
}

}  // namespace cudalab
