// Plots in the terminal and as SVG, from a Report's Plot values, so `cudalab show` draws them
// from a saved run without a GPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/report/report.hpp"

namespace cudalab {

// The plot's points with y resolved from the report's metrics (a point whose metric is missing
// is dropped). A saved run is a student's file: a point that cannot be drawn (x or y not finite,
// or not above zero on a log axis) is left out and counted, never handed to the axis code.
struct ResolvedSeries {
  Message name;
  bool model = false;
  std::vector<std::pair<double, double>> points;
};
struct ResolvedPlot {
  std::vector<ResolvedSeries> series;  // those with a point left to draw
  std::size_t left_out = 0;            // points that could not be drawn
};
ResolvedPlot resolve_plot(const Plot& plot, const Report& report);

// "N points left out: ..." in the reader's words, or an empty Message when none was.
Message left_out_note(std::size_t left_out);

// One axis of a plot, from its drawable points: finite, lo < hi, both above zero on a log axis.
struct AxisRange {
  double lo = 0, hi = 1;
  bool log = false;
  double fraction(double v) const;  // where v lies from lo (0) to hi (1), clamped to [0, 1]
};
AxisRange axis_range(const std::vector<ResolvedSeries>& series, bool x, bool log);

struct PlotStyle {
  std::size_t width = 80;  // whole lines, axis labels included
  bool unicode = true;     // braille lines and symbol markers; ASCII otherwise
  bool color = false;
  // The chart's own words ("log scale") in the reader's language; empty: as they are.
  std::function<std::string(const Message&)> words;
  std::string said(const Message& m) const { return words ? words(m) : m.en(); }
};

// Lines of text, none wider than style.width columns: the axes with ticks and units, each
// measured series as markers, each model series as a line, and a legend.
std::vector<std::string> render_plot(const Plot& plot, const Report& report, const PlotStyle& style);

// Axis ticks for [lo, hi]: decades on a log axis, 1-2-5 steps on a linear one; at most a dozen,
// none for a range that is not finite (or not above zero on a log axis).
std::vector<double> axis_ticks(double lo, double hi, bool log_scale);
// Ticks for a log axis of sizes in bytes: powers of two (4KiB, 64KiB, 1MiB, ...).
std::vector<double> size_ticks(double lo, double hi);
// A tick's label: a size for unit "B" (4KiB, 1MiB), else the value with three significant digits
// and no exponent ("1000", "0.25").
std::string tick_label(double value, const std::string& unit);

}  // namespace cudalab
