#include "common/report/render_svg.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/render_plot.hpp"
#include "common/report/render_timeline.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

constexpr double kWidth = 960, kHeight = 540;
constexpr double kLeft = 90, kRight = 30, kTop = 60, kBottom = 110;
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
constexpr const char* kFont = "font-family=\"DejaVu Sans, Noto Sans CJK SC, sans-serif\"";

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;  // no control characters in XML
    }
  }
  return out;
}

std::string header(const std::string& title, double height = kHeight) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"34\" {3} font-size=\"22\" font-weight=\"bold\">{4}</text>\n",
      kWidth, height, kLeft, kFont, escape(title));
}

std::string text(double x, double y, const std::string& s, const char* anchor = "middle", int size = 15) {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {} font-size=\"{}\" text-anchor=\"{}\">{}</text>\n", x, y, kFont,
                     size, anchor, escape(s));
}

// Where v lies between `from` and `to` on the axis.
double at(const AxisRange& r, double v, double from, double to) { return from + r.fraction(v) * (to - from); }

std::string marker(double x, double y, std::size_t k, const char* color) {
  switch (k % 3) {
    case 0: return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/>\n", x, y, color);
    case 1: return fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"9\" height=\"9\" fill=\"{}\"/>\n", x - 4.5, y - 4.5, color);
    default:
      return fmt::format("<path d=\"M{:.1f},{:.1f} l5,9 l-10,0 z\" fill=\"{}\"/>\n", x, y - 6, color);
  }
}

}  // namespace

namespace {

std::string axis_title(const Message& label, const std::string& unit, bool show_unit, bool log_scale, Lang lang,
                       std::string_view notes_file) {
  return tr(lang, label, notes_file) + (show_unit && !unit.empty() ? " (" + unit + ")" : "") +
         (log_scale ? " · " + tr(lang, "log scale") : "");
}

void plot_axes(const Plot& plot, const AxisRange& xr, const AxisRange& yr, Lang lang, std::string_view notes_file,
               std::string& svg) {
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  for (double t : axis_ticks(yr.lo, yr.hi, plot.log_y)) {
    const double y = at(yr, t, y0, y1);
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", x0, y, x1, y);
    svg += text(x0 - 8, y + 5, tick_label(t, plot.y_unit), "end");
  }
  const auto x_ticks = plot.log_x && plot.x_unit == "B" ? size_ticks(xr.lo, xr.hi) : axis_ticks(xr.lo, xr.hi, plot.log_x);
  for (double t : x_ticks) {
    const double x = at(xr, t, x0, x1);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#ddd\"/>\n", x, y1, x, y0);
    svg += text(x, y0 + 22, tick_label(t, plot.x_unit));
  }
  svg += fmt::format("<path d=\"M{},{} L{},{} L{},{}\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n", x0, y1,
                     x0, y0, x1, y0);
  svg += text((x0 + x1) / 2, y0 + 48, axis_title(plot.x_label, plot.x_unit, plot.x_unit != "B", plot.log_x, lang, notes_file));
  svg += fmt::format("<text transform=\"translate(24,{:.1f}) rotate(-90)\" {} font-size=\"15\" text-anchor=\"middle\">{}</text>\n",
                     (y0 + y1) / 2, kFont, escape(axis_title(plot.y_label, plot.y_unit, true, false, lang, notes_file)));
}

}  // namespace

std::string plot_svg(const Plot& plot, const Report& report, Lang lang) {
  const ResolvedPlot resolved = resolve_plot(plot, report);
  const auto& series = resolved.series;
  const AxisRange xr = axis_range(series, true, plot.log_x), yr = axis_range(series, false, plot.log_y);
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  const auto words = [&](const Message& t) { return tr(lang, t, report.notes_file()); };
  std::string svg = header(words(plot.title));
  plot_axes(plot, xr, yr, lang, report.notes_file(), svg);
  double legend_x = x0;
  std::size_t measured = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* color = kPalette[i % std::size(kPalette)];
    const auto& s = series[i];
    if (s.model) {
      std::string points;
      for (const auto& p : s.points) points += fmt::format("{:.1f},{:.1f} ", at(xr, p.first, x0, x1), at(yr, p.second, y0, y1));
      svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                         points, color);
      svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                         legend_x, kHeight - 24, legend_x + 24, kHeight - 24, color);
    } else {
      for (const auto& p : s.points) svg += marker(at(xr, p.first, x0, x1), at(yr, p.second, y0, y1), measured, color);
      svg += marker(legend_x + 12, kHeight - 24, measured, color);
      ++measured;
    }
    const std::string name = words(s.name);
    svg += text(legend_x + 30, kHeight - 19, name, "start", 14);
    legend_x += 40 + 8.0 * static_cast<double>(display_width(name));
  }
  if (resolved.left_out > 0) svg += text(x1, kTop - 12, words(left_out_note(resolved.left_out)), "end", 13);
  return svg + "</svg>\n";
}

namespace {

// One per ActivityKind, in its order (the page migrations paler than the copies they resemble).
constexpr const char* kKindColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#2ca02c", "#ff7f0e", "#9467bd",
                                       "#8c564b", "#7f7f7f", "#aec7e8", "#ff9896", "#17becf"};
static_assert(std::size(kKindColors) == static_cast<std::size_t>(ActivityKind::page_fault) + 1,
              "a colour for every ActivityKind");
// More operations than this are drawn from a summary of each lane (what kind covers each
// quarter-pixel, long operations first, as the terminal chart does) instead of one rectangle each.
constexpr std::size_t kMaxDrawnOps = 20000;
constexpr std::size_t kSummaryCells = 4 * static_cast<std::size_t>(kWidth);

struct Band {
  double x0, x1, top, lane_h;
};

void draw_ops(const Timeline& t, const Band& band, std::string& svg) {
  const double span = std::max<double>(1.0, static_cast<double>(t.span_ns()));
  auto at = [&](std::int64_t ns) { return band.x0 + static_cast<double>(ns) / span * (band.x1 - band.x0); };
  for (const auto& op : t.ops) {
    const double y = band.top + band.lane_h * static_cast<double>(op.lane) + 4;
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"white\" stroke-width=\"0.5\"/>\n",
                       at(op.start_ns), y, std::max(1.0, at(op.end_ns) - at(op.start_ns)), band.lane_h - 8,
                       kKindColors[static_cast<int>(op.kind)]);
  }
}

void draw_lane_summary(const Timeline& t, const Band& band, std::string& svg) {
  const double span = std::max<double>(1.0, static_cast<double>(t.span_ns()));
  std::vector<const TimelineOp*> order;
  order.reserve(t.ops.size());
  for (const auto& op : t.ops) order.push_back(&op);
  std::stable_sort(order.begin(), order.end(),
                   [](const TimelineOp* a, const TimelineOp* b) { return a->duration_ns() > b->duration_ns(); });
  std::vector<std::vector<int>> cells(t.lanes.size(), std::vector<int>(kSummaryCells, -1));
  for (const TimelineOp* op : order) {
    const auto cell = [&](std::int64_t ns) {
      return static_cast<std::size_t>(std::clamp(static_cast<double>(ns) / span * static_cast<double>(kSummaryCells), 0.0,
                                                    static_cast<double>(kSummaryCells - 1)));
    };
    for (std::size_t c = cell(op->start_ns); c <= cell(op->end_ns); ++c) cells[op->lane][c] = static_cast<int>(op->kind);
  }
  const double cell_w = (band.x1 - band.x0) / static_cast<double>(kSummaryCells);
  for (std::size_t l = 0; l < cells.size(); ++l) {
    for (std::size_t c = 0; c < kSummaryCells;) {
      std::size_t end = c;
      while (end < kSummaryCells && cells[l][end] == cells[l][c]) ++end;
      if (cells[l][c] >= 0) {
        svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\"/>\n",
                           band.x0 + cell_w * static_cast<double>(c), band.top + band.lane_h * static_cast<double>(l) + 4,
                           cell_w * static_cast<double>(end - c), band.lane_h - 8, kKindColors[cells[l][c]]);
      }
      c = end;
    }
  }
}

}  // namespace

std::string timeline_svg(const Timeline& t, Lang lang, std::string_view notes_file) {
  const auto words = [&](const Message& text) { return tr(lang, text, notes_file); };
  const Band band{150, kWidth - kRight, kTop + 10,
                  std::clamp(360.0 / static_cast<double>(std::max<std::size_t>(1, t.lanes.size())), 14.0, 40.0)};
  // The usual five, and unified memory's kinds only where the picture has them; the legend wraps.
  std::vector<ActivityKind> legend_kinds = {ActivityKind::h2d, ActivityKind::kernel, ActivityKind::d2h, ActivityKind::memset,
                                            ActivityKind::host_callback};
  for (auto kind : {ActivityKind::page_fault, ActivityKind::migration_h2d, ActivityKind::migration_d2h}) {
    if (std::any_of(t.ops.begin(), t.ops.end(), [&](const TimelineOp& op) { return op.kind == kind; })) {
      legend_kinds.push_back(kind);
    }
  }
  constexpr double kLegendItemWidth = 130, kLegendRowHeight = 22;
  const auto per_row = static_cast<std::size_t>(std::max(1.0, std::floor((band.x1 - band.x0) / kLegendItemWidth)));
  const std::size_t legend_rows = (legend_kinds.size() + per_row - 1) / per_row;
  const double height = band.top + band.lane_h * static_cast<double>(t.lanes.size()) + 110 +
                        kLegendRowHeight * static_cast<double>(legend_rows - 1);
  const double span_us = std::max(1.0, static_cast<double>(t.span_ns()) / 1000.0);
  std::string svg = header(words(t.title), height);
  for (std::size_t l = 0; l < t.lanes.size(); ++l) {
    svg += text(band.x0 - 10, band.top + band.lane_h * (static_cast<double>(l) + 0.65), words(t.lanes[l].name), "end", 14);
  }
  (t.ops.size() > kMaxDrawnOps ? draw_lane_summary : draw_ops)(t, band, svg);
  const double axis_y = band.top + band.lane_h * static_cast<double>(t.lanes.size()) + 6;
  svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"black\"/>\n", band.x0, axis_y, band.x1, axis_y);
  for (double tick : axis_ticks(0, span_us, false)) {
    const double x = band.x0 + tick / span_us * (band.x1 - band.x0);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"black\"/>\n", x, axis_y, x, axis_y + 6);
    svg += text(x, axis_y + 24, tick_label(tick, "us"));
  }
  svg += text((band.x0 + band.x1) / 2, axis_y + 48, words("time since the first operation (µs)"));
  for (std::size_t i = 0; i < legend_kinds.size(); ++i) {
    const double lx = band.x0 + kLegendItemWidth * static_cast<double>(i % per_row);
    const double ly = height - 32 - kLegendRowHeight * static_cast<double>(legend_rows - 1 - i / per_row);
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"12\" fill=\"{}\"/>\n", lx, ly,
                       kKindColors[static_cast<int>(legend_kinds[i])]);
    svg += text(lx + 22, ly + 11, words(activity_legend(legend_kinds[i])), "start", 14);
  }
  return svg + "</svg>\n";
}

std::vector<std::string> write_report_svgs(const Report& report, const std::string& dir, Lang lang) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw UsageError(msg("--svg: cannot create '{folder}': {why}", arg("folder", printable_value(dir)),
                         arg("why", Message(ec.message()))));
  }
  std::vector<std::string> written;
  auto write = [&](const std::string& key, const std::string& svg) {
    const std::string path = fmt::format("{}/{:02d}-{}.{}.svg", dir, report.lesson_number, report.lesson_slug, key);
    std::ofstream out(path, std::ios::trunc);
    out << svg;
    if (!out) {
      throw UsageError(msg("--svg: cannot write '{file}': {why}", arg("file", printable_value(path)), arg("why", errno_words(errno))));
    }
    written.push_back(path);
  };
  for (const auto& section : report.sections) {
    for (const auto& plot : section.plots) write(plot.key, plot_svg(plot, report, lang));
  }
  for (std::size_t i = 0; i < report.timelines.size(); ++i) {
    const auto& t = report.timelines[i];
    std::string key = fmt::format("timeline-{}{}{}", i + 1, t.key.empty() ? "" : "-", t.key);
    for (char& c : key) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '-';
    }
    write(key, timeline_svg(t, lang, report.notes_file()));
  }
  return written;
}

}  // namespace cudalab
