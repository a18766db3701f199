#include "common/report/render_plot.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kPlotRows = 12;
// Markers stay ASCII letters even on a Unicode terminal: always one column wide, and the series
// stay apart without colour. Lines are braille (2x4 dots a cell) or '.' in ASCII.
constexpr char kMarkers[] = {'o', '+', 'x', '*', '#', '@'};
constexpr const char* kColors[] = {"36", "33", "32", "35", "31", "34"};

std::string colored(const std::string& text, std::size_t series, bool color) {
  if (!color) return text;
  return fmt::format("\x1b[{}m{}\x1b[0m", kColors[series % std::size(kColors)], text);
}

// A canvas of cells, each holding a braille pattern (lines) or a marker, and the series that drew it.
class Canvas {
 public:
  Canvas(std::size_t cols, std::size_t rows) : cols_(cols), rows_(rows), dots_(cols * rows, 0), marks_(cols * rows, 0),
                                                 owner_(cols * rows, 0) {}
  std::size_t cols() const { return cols_; }
  std::size_t rows() const { return rows_; }

  // A dot at (dx, dy) in dot space: 2 x 4 dots per cell, dy = 0 at the top.
  void dot(long dx, long dy, std::size_t series) {
    if (dx < 0 || dy < 0 || dx >= static_cast<long>(2 * cols_) || dy >= static_cast<long>(4 * rows_)) return;
    static constexpr unsigned char kBits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    const std::size_t cell = static_cast<std::size_t>(dy / 4) * cols_ + static_cast<std::size_t>(dx / 2);
    dots_[cell] |= kBits[dx % 2][dy % 4];
    if (marks_[cell] == 0) owner_[cell] = series;
  }
  void line(long x0, long y0, long x1, long y1, std::size_t series) {
    const long dx = std::labs(x1 - x0), dy = -std::labs(y1 - y0);
    const long sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    long err = dx + dy;
    for (;;) {
      dot(x0, y0, series);
      if (x0 == x1 && y0 == y1) return;
      const long e2 = 2 * err;
      if (e2 >= dy) { err += dy; x0 += sx; }
      if (e2 <= dx) { err += dx; y0 += sy; }
    }
  }
  void mark(std::size_t col, std::size_t row, char marker, std::size_t series) {
    if (col >= cols_ || row >= rows_) return;
    marks_[row * cols_ + col] = marker;
    owner_[row * cols_ + col] = series;
  }
  std::string row_text(std::size_t row, const PlotStyle& style) const {
    std::string out;
    for (std::size_t c = 0; c < cols_; ++c) {
      const std::size_t cell = row * cols_ + c;
      std::string glyph;
      if (marks_[cell] != 0) {
        glyph = std::string(1, marks_[cell]);
      } else if (dots_[cell] != 0) {
        glyph = style.unicode ? braille(dots_[cell]) : ".";
      } else {
        out += ' ';
        continue;
      }
      out += colored(glyph, owner_[cell], style.color);
    }
    return out;
  }

 private:
  static std::string braille(unsigned char bits) {
    const unsigned cp = 0x2800u + bits;  // U+2800..U+28FF: three bytes of UTF-8
    return {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
            static_cast<char>(0x80 | (cp & 0x3F))};
  }
  std::size_t cols_, rows_;
  std::vector<unsigned char> dots_;
  std::vector<char> marks_;
  std::vector<std::size_t> owner_;
};

std::vector<std::string> legend(const std::vector<ResolvedSeries>& series, const PlotStyle& style, std::size_t indent) {
  std::vector<std::string> lines;
  std::string line(indent, ' ');
  std::size_t width = indent;
  std::size_t measured = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string key = series[i].model ? (style.unicode ? "⠉⠉" : "..") : std::string(1, kMarkers[measured++ % std::size(kMarkers)]);
    const std::string item = key + " " + style.said(series[i].name);
    const std::size_t w = display_width(item) + 3;
    if (width + w > style.width && width > indent) {
      lines.push_back(line);
      line = std::string(indent, ' ');
      width = indent;
    }
    line += colored(key, i, style.color) + " " + style.said(series[i].name) + "   ";
    width += w;
  }
  if (width > indent) lines.push_back(line);
  return lines;
}

// What was left out, said under the plot in as many lines as the width needs.
std::vector<std::string> left_out_lines(std::size_t left_out, const PlotStyle& style) {
  if (left_out == 0) return {};
  return wrap_text(style.said(left_out_note(left_out)), style.width);
}

}  // namespace

ResolvedPlot resolve_plot(const Plot& plot, const Report& report) {
  // Only what the axis code can place: a log of zero or less, or an infinite or NaN value read
  // from a student's file, would reach integer conversions with no value to give them.
  const auto drawable = [&plot](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!plot.log_x || x > 0) && (!plot.log_y || y > 0);
  };
  ResolvedPlot out;
  for (const auto& s : plot.series) {
    ResolvedSeries r{s.name, s.model, {}};
    for (const auto& p : s.points) {
      double y = p.y;
      if (!p.metric.empty()) {
        const Metric* m = report.find_metric(p.metric);
        if (m == nullptr || m->samples.empty()) continue;
        y = m->summary().median;
      }
      if (!drawable(p.x, y)) {
        ++out.left_out;
        continue;
      }
      r.points.emplace_back(p.x, y);
    }
    if (!r.points.empty()) out.series.push_back(std::move(r));
  }
  return out;
}

Message left_out_note(std::size_t left_out) {
  if (left_out == 0) return {};
  return msg("points left out of this plot: {count} (not a finite number, or not above zero on a log axis)",
             arg("count", std::to_string(left_out)));
}

double AxisRange::fraction(double v) const {
  const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi, x = log ? std::log10(v) : v;
  if (!(b > a)) return 0.5;
  // Halved first: b - a of two finite values may still overflow (-1e308 to 1e308).
  const double t = (x / 2 - a / 2) / (b / 2 - a / 2);
  return std::isnan(t) ? 0.5 : std::clamp(t, 0.0, 1.0);
}

AxisRange axis_range(const std::vector<ResolvedSeries>& series, bool x, bool log) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : series) {
    for (const auto& p : s.points) {  // every point is drawable (resolve_plot)
      const double v = x ? p.first : p.second;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi)) return {log ? 1.0 : 0.0, log ? 10.0 : 1.0, log};
  if (!log && !x) lo = std::min(lo, 0.0);  // a linear value axis starts at zero: no exaggeration
  if (hi == lo && log) {
    if (std::isfinite(lo * 10)) hi = lo * 10;
    else lo = hi / 10;
  } else if (hi == lo) {
    // One unit wide, or wider where a unit is lost in the value's precision (1e300 + 1 == 1e300).
    const double pad = std::max(1.0, std::fabs(lo) * 1e-3);
    if (std::isfinite(lo + pad)) hi = lo + pad;
    else lo -= pad;
  }
  return {lo, hi, log};
}

std::vector<double> axis_ticks(double lo, double hi, bool log_scale) {
  constexpr int kMaxTicks = 12;
  std::vector<double> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (!(hi > lo)) return {lo};
  if (log_scale && lo > 0) {
    // Decades (exponents within +-324, kept as doubles); for a range of many decades, every 2nd or
    // 3rd so labels do not crowd.
    const double first = std::ceil(std::log10(lo) - 1e-9);
    const double last = std::floor(std::log10(hi) + 1e-9);
    const double step = std::max(1.0, std::floor((last - first + 1) / 6));
    for (double e = first; e <= last; e += step) ticks.push_back(std::pow(10.0, e));
    if (ticks.size() >= 2) return ticks;
    ticks.clear();
  }
  const double raw = hi / 5 - lo / 5;  // (hi - lo) / 5, which cannot overflow
  const double magnitude = raw > 0 ? std::pow(10.0, std::floor(std::log10(raw))) : 0.0;
  if (!(magnitude > 0) || !std::isfinite(magnitude)) return {lo, hi};
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  // Counted, not summed: where a step is lost in the value's precision, t += step would not move.
  const double first = std::ceil(lo / step);
  for (int k = 0; k < kMaxTicks; ++k) {
    const double t = (first + k) * step;
    if (!std::isfinite(t) || !(t <= hi + step * 1e-9)) break;
    if (!ticks.empty() && t <= ticks.back()) continue;
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string tick_label(double value, const std::string& unit) {
  if (unit == "B" && value >= 0 && value < 0x1p63) return format_bytes(static_cast<std::uint64_t>(std::llround(value)));
  if (value == 0 || !std::isfinite(value)) return fmt::format("{}", value == 0 ? 0.0 : value);
  // Three significant digits, written out: "1000", "2500", "0.25", never "1e+03"; past a dozen
  // digits either way (a hand-made run's 1e300) the exponent is shorter than the digits.
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  if (magnitude > 12 || magnitude < -12) return fmt::format("{:.3g}", value);
  std::string text = fmt::format("{:.{}f}", value, std::clamp(2 - magnitude, 0, 15));
  if (text.find('.') != std::string::npos) {
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

std::vector<double> size_ticks(double lo, double hi) {
  // Sizes read best as powers of two: every 4th, 16th or 64th power so at most ~6 ticks.
  constexpr std::size_t kMostTicks = 6;
  std::vector<double> ticks;
  if (!(lo > 0) || !std::isfinite(hi) || !(hi >= lo)) return ticks;
  const double limit = hi * (1 + 1e-9);  // may be infinite for hi near the largest double: the count stops it
  for (double factor : {4.0, 16.0, 64.0, 1024.0}) {
    ticks.clear();
    for (double t = std::pow(2.0, std::ceil(std::log2(lo) - 1e-9)); t <= limit && ticks.size() <= kMostTicks; t *= factor) {
      ticks.push_back(t);
    }
    if (ticks.size() <= kMostTicks) break;
  }
  return ticks;
}

std::vector<std::string> render_plot(const Plot& plot, const Report& report, const PlotStyle& style) {
  const ResolvedPlot resolved = resolve_plot(plot, report);
  const auto& series = resolved.series;
  if (series.empty()) return left_out_lines(resolved.left_out, style);
  const AxisRange xa = axis_range(series, true, plot.log_x);
  const AxisRange ya = axis_range(series, false, plot.log_y);
  const auto xt = plot.log_x && plot.x_unit == "B" ? size_ticks(xa.lo, xa.hi) : axis_ticks(xa.lo, xa.hi, plot.log_x);
  const auto yt = axis_ticks(ya.lo, ya.hi, plot.log_y);

  std::size_t label_w = 0;
  for (double t : yt) label_w = std::max(label_w, display_width(tick_label(t, plot.y_unit)));
  const std::size_t left = label_w + 2;  // "54.3 ┤"
  const std::size_t cols = style.width > left + 12 ? style.width - left - 2 : 10;
  Canvas canvas(cols, kPlotRows);
  auto dot_x = [&](double x) { return std::lround(xa.fraction(x) * static_cast<double>(2 * cols - 1)); };
  auto dot_y = [&](double y) { return std::lround((1.0 - ya.fraction(y)) * static_cast<double>(4 * kPlotRows - 1)); };

  std::size_t measured = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    if (s.model) {
      for (std::size_t k = 1; k < s.points.size(); ++k) {
        canvas.line(dot_x(s.points[k - 1].first), dot_y(s.points[k - 1].second), dot_x(s.points[k].first),
                    dot_y(s.points[k].second), i);
      }
      if (s.points.size() == 1) canvas.dot(dot_x(s.points[0].first), dot_y(s.points[0].second), i);
      continue;
    }
    const char marker = kMarkers[measured++ % std::size(kMarkers)];
    for (const auto& [x, y] : s.points) {
      canvas.mark(static_cast<std::size_t>(dot_x(x) / 2), static_cast<std::size_t>(dot_y(y) / 4), marker, i);
    }
  }

  const std::string vbar = style.unicode ? "│" : "|", tick = style.unicode ? "┤" : "+";
  std::vector<std::string> lines;
  lines.push_back(fmt::format("{}{}", std::string(left > 1 ? left - 1 : 0, ' '),
                              style.said(plot.y_label) + (plot.y_unit.empty() ? "" : " (" + plot.y_unit + ")")));
  std::vector<std::string> row_labels(kPlotRows);
  for (double t : yt) {
    const auto row = static_cast<std::size_t>(dot_y(t) / 4);
    if (row < kPlotRows && row_labels[row].empty()) row_labels[row] = tick_label(t, plot.y_unit);
  }
  for (std::size_t r = 0; r < kPlotRows; ++r) {
    lines.push_back(pad_left(row_labels[r], label_w) + " " + (row_labels[r].empty() ? vbar : tick) +
                    canvas.row_text(r, style));
  }
  // The x axis: a rule with a mark under each tick, then the tick labels where they fit.
  std::string rule = std::string(label_w + 1, ' ') + (style.unicode ? "└" : "+");
  std::vector<std::size_t> tick_cols;
  for (double t : xt) tick_cols.push_back(static_cast<std::size_t>(dot_x(t) / 2));
  std::size_t free_from = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    const bool at_tick = std::find(tick_cols.begin(), tick_cols.end(), c) != tick_cols.end();
    rule += at_tick ? (style.unicode ? "┬" : "+") : (style.unicode ? "─" : "-");
  }
  std::string label_line;
  for (std::size_t k = 0; k < xt.size(); ++k) {
    const std::string text = tick_label(xt[k], plot.x_unit);
    const std::size_t w = display_width(text);
    const std::size_t centre = left + tick_cols[k];
    std::size_t start = centre >= w / 2 ? centre - w / 2 : 0;
    if (start < free_from) continue;
    if (start + w > style.width) start = style.width > w ? style.width - w : 0;
    if (start < free_from) continue;
    label_line += std::string(start - display_width(label_line), ' ') + text;
    free_from = start + w + 1;
  }
  lines.push_back(rule);
  lines.push_back(label_line);
  const std::string x_title = style.said(plot.x_label) +
                              (plot.x_unit.empty() || plot.x_unit == "B" ? "" : " (" + plot.x_unit + ")") +
                              (plot.log_x ? (style.unicode ? " · " : " - ") + style.said("log scale") : "");
  const std::size_t xw = display_width(x_title);
  lines.push_back(std::string(left + (cols > xw ? (cols - xw) / 2 : 0), ' ') + x_title);
  for (auto& l : legend(series, style, left)) lines.push_back(std::move(l));
  for (auto& l : left_out_lines(resolved.left_out, style)) lines.push_back(std::move(l));
  return lines;
}

}  // namespace cudalab
