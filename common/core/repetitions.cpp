#include "common/core/repetitions.hpp"

#include "common/core/stats.hpp"

namespace cudalab {

double host_ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double host_us_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> PairedSamples::ratios() const {
  std::vector<double> out;
  for (std::size_t i = 0; i < a_ms.size() && i < b_ms.size(); ++i) {
    if (b_ms[i] > 0) out.push_back(a_ms[i] / b_ms[i]);
  }
  return out;
}

bool needs_more_samples(const std::vector<double>& samples_ms, const Repetitions& reps) {
  if (static_cast<int>(samples_ms.size()) < reps.repeat) return true;
  if (!reps.adaptive || static_cast<int>(samples_ms.size()) >= kMaxRepeatFactor * reps.repeat) return false;
  double total_ms = 0;
  for (double s : samples_ms) total_ms += s;
  if (total_ms >= kRepeatBudgetMs) return false;
  return median_ci_relative_halfwidth(samples_ms) > kTargetMedianCi;
}

}  // namespace cudalab
