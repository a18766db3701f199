#include "common/report/render_summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

std::string check_tally(const Report& r) {
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed ? 1 : 0;
  const char* verdict = !r.verify_passed() ? "✗ VERIFY" : r.expect_passed() ? "✓" : "✓ (expect ✗)";
  return fmt::format("{}/{} {}", passed, r.checks.size(), verdict);
}

}  // namespace

std::string render_tour_summary(const std::vector<TourRow>& rows, TourForm form, std::size_t width, Lang lang) {
  const bool stable = form != TourForm::text;
  const std::string title = "── " + tr(lang, "summary") + " ";
  std::string out = stable ? "summary\n" : title + repeat_text("─", 80 - std::min<std::size_t>(80, display_width(title))) + "\n\n";
  std::vector<std::string> headlines;  // in the reader's language
  for (const auto& row : rows) {
    headlines.push_back(row.report == nullptr ? std::string() : tr(lang, row.report->headline, row.report->notes_file()));
  }
  constexpr std::size_t kLead = 2 + 2 + 1 + 20 + 2;  // "  NN slug                  "
  std::size_t headline_width = 0, tally_width = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].report == nullptr) continue;
    headline_width = std::max(headline_width, display_width(headlines[i]));
    const auto& row = rows[i];
    tally_width = std::max(tally_width, display_width(check_tally(*row.report)));
  }
  // The headline column gives way to the terminal's edge; a long headline wraps under itself.
  const std::size_t room = width > kLead + 2 + tally_width + 20 ? width - kLead - 2 - tally_width : 20;
  headline_width = std::min(headline_width, room);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
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
      const auto headline = wrap_text(headlines[r], headline_width);
      out += fmt::format("  {:02d} {}  {}  {}\n", row.number, pad_right(row.slug, 20),
                         pad_right(headline[0], headline_width), check_tally(*row.report));
      for (std::size_t i = 1; i < headline.size(); ++i) out += std::string(kLead, ' ') + headline[i] + '\n';
    }
  }
  return out;
}

}  // namespace cudalab
