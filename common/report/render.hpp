// The output forms of a Report (README.md, "Output"):
//   text   — annotated for a person, explanations from the course notes, colour on a TTY;
//   json   — report_json.hpp;
//   stable — only what cannot change between runs on a GPU that behaves as the lesson teaches.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "common/report/notes.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct TextStyle {
  bool color = false;
  std::size_t width = 80;
  Lang lang = Lang::en;
  bool recorded = false;  // rendering a saved run (cudalab show): say so, with device and date
  bool timelines = false;  // draw the report's timelines (--timeline, and always in `cudalab show`)
  bool tables = false;     // --table: list the metrics a plot draws too, not only the plot
  bool unicode = true;     // braille and box drawing; ASCII when the terminal cannot show them
  // Called between sections (for --pause in a live lecture); may be empty.
  std::function<void()> between_sections;
};

void render_text(std::ostream& out, const Report& report, const TextStyle& style);
std::string render_text(const Report& report, const TextStyle& style);

std::string render_stable(const Report& report);

// The portable grading form: the lesson, its params and the verify results only. Device facts
// and expect verdicts depend on the GPU; these do not, so any correct GPU prints the same bytes.
std::string render_portable(const Report& report);

}  // namespace cudalab
