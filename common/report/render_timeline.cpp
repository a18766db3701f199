// The terminal Gantt chart. Glyphs are ASCII so the picture survives any terminal, font and
// `less`; colour (when asked for) only tints them.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/core/text_format.hpp"
#include "common/report/render_timeline.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxLabelWidth = 20;
constexpr std::size_t kMinChartColumns = 10;
constexpr std::size_t kMinTickSpacing = 10;  // columns between axis ticks, room for a label

struct Glyph {
  char mark;
  const char* color;  // ANSI SGR code
  const char* legend;
};

Glyph glyph_of(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::h2d: return {'>', "36", "H2D copy"};
    case ActivityKind::d2h: return {'<', "35", "D2H copy"};
    case ActivityKind::kernel: return {'#', "32", "kernel"};
    case ActivityKind::memset: return {'=', "33", "memset"};
    case ActivityKind::d2d: return {'~', "34", "D2D copy"};
    case ActivityKind::h2h: return {':', "34", "H2H copy"};
    case ActivityKind::host_callback: return {'@', "31", "host callback"};
    case ActivityKind::sync: return {'.', "2", "host waits"};
    case ActivityKind::migration_h2d: return {'}', "36", "H2D page migration"};
    case ActivityKind::migration_d2h: return {'{', "35", "D2H page migration"};
    case ActivityKind::page_fault: return {'!', "31", "page fault"};
  }
  return {'?', "0", "?"};
}

}  // namespace

const char* activity_legend(ActivityKind kind) { return glyph_of(kind).legend; }

namespace {

constexpr ActivityKind kLegendOrder[] = {ActivityKind::h2d,    ActivityKind::kernel, ActivityKind::d2h,           ActivityKind::memset,
                                   ActivityKind::d2d,    ActivityKind::h2h,    ActivityKind::host_callback, ActivityKind::sync,
                                   ActivityKind::page_fault, ActivityKind::migration_h2d, ActivityKind::migration_d2h};

struct TimeUnit {
  double ns_per_unit;
  const char* name;
};

TimeUnit unit_for(std::int64_t span_ns) {
  if (span_ns < 10'000) return {1, "ns"};
  if (span_ns < 10'000'000) return {1e3, "µs"};
  if (span_ns < 10'000'000'000) return {1e6, "ms"};
  return {1e9, "s"};
}

// The smallest of 1, 2, 5 × 10^k that is at least `raw`.
double nice_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

// What each lane shows, cell by cell: the kind of operation that covers the cell (long
// operations first, so a short one drawn later on the same cells stays visible), or kEmpty. The
// picture is drawn from this summary alone, whatever the number of operations.
constexpr int kEmpty = -1;

struct LaneSummary {
  std::vector<std::vector<int>> cells;  // [lane][column]
  bool present[std::size(kLegendOrder)] = {};
};

LaneSummary summarize_lanes(const Timeline& timeline, std::size_t columns, double ns_per_cell) {
  std::vector<const TimelineOp*> order;
  order.reserve(timeline.ops.size());
  for (const auto& op : timeline.ops) order.push_back(&op);
  std::stable_sort(order.begin(), order.end(),
                   [](const TimelineOp* a, const TimelineOp* b) { return a->duration_ns() > b->duration_ns(); });
  LaneSummary summary;
  summary.cells.assign(timeline.lanes.size(), std::vector<int>(columns, kEmpty));
  for (const TimelineOp* op : order) {
    if (op->lane >= summary.cells.size()) continue;
    auto first = static_cast<std::size_t>(std::max(0.0, std::floor(static_cast<double>(op->start_ns) / ns_per_cell)));
    first = std::min(first, columns - 1);
    auto last = static_cast<std::size_t>(std::max(0.0, std::ceil(static_cast<double>(op->end_ns) / ns_per_cell)));
    last = std::min(std::max(last, first + 1), columns);  // at least one cell
    for (std::size_t c = first; c < last; ++c) summary.cells[op->lane][c] = static_cast<int>(op->kind);
    summary.present[static_cast<int>(op->kind)] = true;
  }
  return summary;
}

// One row per lane: its name, then runs of one kind (colour codes wrap runs rather than cells).
void lane_rows(const Timeline& timeline, const std::vector<std::string>& names, const LaneSummary& summary,
               std::size_t label_width, bool color, std::vector<std::string>& lines) {
  for (std::size_t l = 0; l < timeline.lanes.size(); ++l) {
    const auto& cells = summary.cells[l];
    std::string row = pad_right(truncate_to_width(names[l], label_width), label_width) + " │";
    for (std::size_t c = 0; c < cells.size();) {
      std::size_t end = c;
      while (end < cells.size() && cells[end] == cells[c]) ++end;
      if (cells[c] == kEmpty) {
        row += std::string(end - c, ' ');
      } else {
        const Glyph g = glyph_of(static_cast<ActivityKind>(cells[c]));
        const std::string run(end - c, g.mark);
        row += color ? fmt::format("\x1b[{}m{}\x1b[0m", g.color, run) : run;
      }
      c = end;
    }
    lines.push_back(row + "│");
  }
}

// The axis: ticks at round values, labels left-aligned on their tick, the unit under the lanes.
void time_axis(std::int64_t span, std::size_t columns, double ns_per_cell, std::size_t label_width,
               std::vector<std::string>& lines) {
  const TimeUnit unit = unit_for(span);
  const double span_units = static_cast<double>(span) / unit.ns_per_unit;
  const std::size_t max_ticks = std::max<std::size_t>(1, columns / kMinTickSpacing);
  const double step = nice_step(span_units / static_cast<double>(max_ticks));
  std::string axis = std::string(label_width + 1, ' ') + "└";
  std::string labels(columns + 1, ' ');
  std::vector<bool> tick_at(columns + 1, false);
  for (int k = 0;; ++k) {
    const double value = k * step;
    if (value > span_units * (1 + 1e-9)) break;
    const auto col = static_cast<std::size_t>(std::lround(value * unit.ns_per_unit / ns_per_cell));
    if (col > columns) break;
    tick_at[col] = true;
    const std::string text = fmt::format("{:g}", value);
    // The last label may sit left of its tick so the line keeps to the width.
    labels.replace(std::min(col, labels.size() - std::min(labels.size(), text.size())), text.size(), text);
  }
  for (std::size_t c = 0; c < columns; ++c) axis += tick_at[c] && c > 0 ? "┴" : "─";
  axis += "┘";
  lines.push_back(axis);
  const auto trim = labels.find_last_not_of(' ');
  lines.push_back(pad_left(unit.name, label_width) + "  " + labels.substr(0, trim + 1));
}

// The legend: only the kinds this picture shows, wrapped to the width.
void legend(const LaneSummary& summary, const TimelineStyle& style,
            const std::function<std::string(const Message&)>& words, std::vector<std::string>& lines) {
  std::string legend = words("legend");
  std::size_t legend_width = display_width(legend);
  for (ActivityKind kind : kLegendOrder) {
    if (!summary.present[static_cast<int>(kind)]) continue;
    const Glyph g = glyph_of(kind);
    const std::string mark(1, g.mark);
    const std::string item =
        fmt::format("{} {}", style.color ? fmt::format("\x1b[{}m{}\x1b[0m", g.color, mark) : mark, words(g.legend));
    const std::size_t item_width = display_width(item);
    if (legend_width + 2 + item_width > style.width) {
      lines.push_back(legend);
      legend = std::string(6, ' ');
      legend_width = 6;
    }
    legend += "  " + item;
    legend_width += 2 + item_width;
  }
  lines.push_back(legend);
}

}  // namespace

std::vector<std::string> render_timeline(const Timeline& timeline, const TimelineStyle& style) {
  const std::function<std::string(const Message&)> words = [&style](const Message& text) {
    return style.words ? style.words(text) : text.en();
  };
  std::vector<std::string> lines;
  if (timeline.ops.empty()) {
    lines.push_back(words("(no GPU activity was recorded)"));
    return lines;
  }
  std::size_t label_width = 2;
  std::vector<std::string> names;  // the lanes' names in the reader's language
  for (const auto& lane : timeline.lanes) names.push_back(words(lane.name));
  for (const auto& name : names) label_width = std::max(label_width, display_width(name));
  label_width = std::min({label_width, kMaxLabelWidth, std::max<std::size_t>(4, style.width / 4)});
  const std::size_t frame = label_width + 3;  // label, " │" before the chart, "│" after it
  const std::size_t columns = style.width > frame + kMinChartColumns ? style.width - frame : kMinChartColumns;
  const std::int64_t span = std::max<std::int64_t>(timeline.span_ns(), 1);
  const double ns_per_cell = static_cast<double>(span) / static_cast<double>(columns);

  const LaneSummary summary = summarize_lanes(timeline, columns, ns_per_cell);
  lane_rows(timeline, names, summary, label_width, style.color, lines);
  time_axis(span, columns, ns_per_cell, label_width, lines);
  legend(summary, style, words, lines);
  if (timeline.dropped_records > 0) {
    const std::string warning =
        words(msg(timeline.dropped_records == 1 ? "! CUPTI dropped {count} record: some operations are missing from this picture"
                                                : "! CUPTI dropped {count} records: some operations are missing from this picture",
                  arg("count", timeline.dropped_records)));
    for (auto& line : wrap_text(warning, style.width)) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace cudalab
