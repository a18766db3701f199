#include "common/report/render_summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

std::string check_tally(const Report& r) {
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed ? 1 : 0;
  const char* verdict = !r.verify_passed() ? "✗ VERIFY" : r.expect_passed() ? "✓" : "✓ (expect ✗)";
  return fmt::format("{}/{} {}", passed, r.checks.size(), verdict);
}

}  // namespace

std::string render_tour_summary(const std::vector<TourRow>& rows, TourForm form, std::size_t width) {
  const bool stable = form != TourForm::text;
  std::string out = stable ? "summary\n" : "── summary " + repeat_text("─", 69) + "\n\n";
  constexpr std::size_t kLead = 2 + 2 + 1 + 20 + 2;  // "  NN slug                  "
  std::size_t headline_width = 0, tally_width = 0;
  for (const auto& row : rows) {
    if (row.report == nullptr) continue;
    headline_width = std::max(headline_width, display_width(row.report->headline));
    tally_width = std::max(tally_width, display_width(check_tally(*row.report)));
  }
  // The headline column gives way to the terminal's edge; a long headline wraps under itself.
  const std::size_t room = width > kLead + 2 + tally_width + 20 ? width - kLead - 2 - tally_width : 20;
  headline_width = std::min(headline_width, room);
  for (const auto& row : rows) {
    if (row.report == nullptr) {
      out += fmt::format("  {:02d} {}  {}\n", row.number, pad_right(row.slug, 20), row.skipped);
    } else if (stable) {
      out += fmt::format("lesson {:02d} {} verify={}", row.number, row.slug, row.report->verify_passed() ? "pass" : "FAIL");
      if (form == TourForm::stable) {
        out += row.report->expect_passed() ? " expect=pass" : " expect=FAIL";
        out += row.report->disturbed() ? " environment=disturbed" : " environment=clean";
      }
      out += '\n';
    } else {
      const auto headline = wrap_text(row.report->headline, headline_width);
      out += fmt::format("  {:02d} {}  {}  {}\n", row.number, pad_right(row.slug, 20),
                         pad_right(headline[0], headline_width), check_tally(*row.report));
      for (std::size_t i = 1; i < headline.size(); ++i) out += std::string(kLead, ' ') + headline[i] + '\n';
    }
  }
  return out;
}

}  // namespace cudalab
