// The closing table of `cudalab all`: one row per lesson, with its headline and its checks,
// or why it did not run. A renderer like the others; the CLI only collects the rows.
#pragma once

#include <string>
#include <vector>

#include "common/core/lang.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct TourRow {
  int number = 0;
  std::string slug;
  const Report* report = nullptr;  // null when the lesson did not run
  std::string skipped;             // then why: "preset error", "waived", "runtime error"
};

// text: a rule, then "  NN slug  headline  passed/total ✓", the headline wrapped so that rows
// fit `width` columns; stable: one
// "lesson NN slug verify=pass expect=pass environment=clean" line each, nothing that varies
// between runs on a quiet GPU; portable: only verify, as expect and the environment depend on the GPU.
enum class TourForm { text, stable, portable };
std::string render_tour_summary(const std::vector<TourRow>& rows, TourForm form, std::size_t width = 80,
                                Lang lang = Lang::en);

}  // namespace cudalab
