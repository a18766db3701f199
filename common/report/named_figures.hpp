// The figures a lesson's labels quote from a lecture (or another source no run of this lab
// measures): they live in course-notes/figures/constants.txt only, and a label refers to them by
// name, as the notes do with {{const:NAME}}. So the catalogues translate "{sequential} in order",
// and neither they nor the code type "19.62 ms" a second time.
#pragma once

#include <string>
#include <string_view>

namespace cudalab {

// The named figure as the notes print it: "19.62 ms", "5–20×". Throws std::out_of_range for a
// name constants.txt lacks: a programming error, which the tests that build every lesson's report
// catch.
std::string named_figure_text(std::string_view name);

// Its value (the low end of a range), in its unit.
double named_figure_value(std::string_view name);

}  // namespace cudalab
