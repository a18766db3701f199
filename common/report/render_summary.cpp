#include "render_summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "text_format.hpp"

namespace cudalab {

namespace {

std::string check_tally(const Report& r) {
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed ? 1 : 0;
  const char* verdict = !r.verify_passed() ? "✗ VERIFY" : r.expect_passed() ? "✓" : "✓ (expect ✗)";
  return fmt::format("{}/{} {}", passed, r.checks.size(), verdict);
}

}  // namespace

std::string render_tour_summary(const std::vector<TourRow>& rows, TourForm form) {
  const bool stable = form != TourForm::text;
  std::string out = stable ? "summary\n" : "── summary " + repeat_text("─", 69) + "\n\n";
  std::size_t headline_width = 0;
  for (const auto& row : rows) {
    if (row.report != nullptr) headline_width = std::max(headline_width, display_width(row.report->headline));
  }
  for (const auto& row : rows) {
    if (row.report == nullptr) {
      out += fmt::format("  {:02d} {}  {}\n", row.number, pad_right(row.slug, 20), row.skipped);
    } else if (stable) {
      out += fmt::format("lesson {:02d} {} verify={}", row.number, row.slug, row.report->verify_passed() ? "pass" : "FAIL");
      if (form == TourForm::stable) out += row.report->expect_passed() ? " expect=pass" : " expect=FAIL";
      out += '\n';
    } else {
      out += fmt::format("  {:02d} {}  {}  {}\n", row.number, pad_right(row.slug, 20),
                         pad_right(row.report->headline, headline_width), check_tally(*row.report));
    }
  }
  return out;
}

}  // namespace cudalab
