// Self-contained SVG files of a report's plots and timelines, for slides: axes, ticks, labels,
// a legend and a title, readable on a projector. No dependency: SVG is text.
#pragma once

#include <string>
#include <vector>

#include "common/report/report.hpp"

namespace cudalab {

std::string plot_svg(const Plot& plot, const Report& report);
std::string timeline_svg(const Timeline& timeline);

// Writes NN-slug.<plot or timeline key>.svg for every plot and timeline of `report` into `dir`
// (created if missing); returns the paths written. Throws UsageError naming --svg on failure.
std::vector<std::string> write_report_svgs(const Report& report, const std::string& dir);

}  // namespace cudalab
