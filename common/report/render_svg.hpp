// Self-contained SVG files of a report's plots and timelines, for slides: axes, ticks, labels,
// a legend and a title, readable on a projector. No dependency: SVG is text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/core/lang.hpp"

#include "common/report/report.hpp"

namespace cudalab {

// Every word of a picture (title, axes, legend, lane names) in `lang`, through the zh catalogue
// of the report's lesson (report/translate.hpp).
std::string plot_svg(const Plot& plot, const Report& report, Lang lang);
std::string timeline_svg(const Timeline& timeline, Lang lang, std::string_view notes_file);

// Writes NN-slug.<plot or timeline key>.svg for every plot and timeline of `report` into `dir`
// (created if missing); returns the paths written. Throws UsageError naming --svg on failure.
std::vector<std::string> write_report_svgs(const Report& report, const std::string& dir, Lang lang);

}  // namespace cudalab
