#include "common/report/reference_runs.hpp"

namespace cudalab {

std::optional<std::string_view> reference_run(std::string_view name) {
  for (const auto* run = detail::kEmbeddedRuns; run->name != nullptr; ++run) {
    if (name == run->name) return std::string_view(run->json);
  }
  return std::nullopt;
}

std::optional<double> reference_turn_s(std::string_view name) {
  for (const auto* run = detail::kEmbeddedRuns; run->name != nullptr; ++run) {
    if (name == run->name && run->turn_s > 0) return run->turn_s;
  }
  return std::nullopt;
}

}  // namespace cudalab
