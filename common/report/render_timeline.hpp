// The timeline as a Gantt chart in the terminal.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/core/timeline.hpp"

namespace cudalab {

struct TimelineStyle {
  bool color = false;
  std::size_t width = 80;  // total columns, labels included
  // The chart's own words ("legend", "kernel", ...) in the reader's language; empty: as they are.
  std::function<std::string(const Message&)> words;
};

// The Gantt chart, one string per line (no trailing newlines): a lane per stream, a time axis
// with units, and a legend. Every operation covers at least one cell.
std::vector<std::string> render_timeline(const Timeline& timeline, const TimelineStyle& style);

// How the legend names a kind of operation ("H2D copy", "kernel", "host waits"), in English; the
// zh catalogue (labels/cudalab.po) has each.
const char* activity_legend(ActivityKind kind);

}  // namespace cudalab
