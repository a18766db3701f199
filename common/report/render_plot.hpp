// Plots in the terminal and as SVG, from a Report's Plot values, so `cudalab show` draws them
// from a saved run without a GPU.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/report/report.hpp"

namespace cudalab {

// The plot's points with y resolved from the report's metrics (a point whose metric is missing
// is dropped).
struct ResolvedSeries {
  Message name;
  bool model = false;
  std::vector<std::pair<double, double>> points;
};
std::vector<ResolvedSeries> resolve_plot(const Plot& plot, const Report& report);

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

// Axis ticks for [lo, hi]: decades on a log axis, 1-2-5 steps on a linear one.
std::vector<double> axis_ticks(double lo, double hi, bool log_scale);
// Ticks for a log axis of sizes in bytes: powers of two (4KiB, 64KiB, 1MiB, ...).
std::vector<double> size_ticks(double lo, double hi);
// A tick's label: sizes for unit "B" (4KiB, 1MiB), otherwise a short number.
// A tick's label: a size for unit "B" (4KiB, 1MiB), else the value with three significant digits
// and no exponent ("1000", "0.25").
std::string tick_label(double value, const std::string& unit);

}  // namespace cudalab
