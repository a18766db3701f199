#include "common/report/report.hpp"

#include <algorithm>
#include <ctime>
#include <numeric>

#include <fmt/format.h>

namespace cudalab {

std::string Report::notes_file() const { return fmt::format("{:02d}-{}", lesson_number, lesson_slug); }

const Metric* Report::find_metric(const std::string& key) const {
  for (const auto& section : sections) {
    for (const auto& metric : section.metrics) {
      if (metric.key == key) return &metric;
    }
  }
  return nullptr;
}

bool Report::verify_passed() const {
  return std::all_of(checks.begin(), checks.end(),
                     [](const Check& c) { return c.kind != CheckKind::verify || c.passed; });
}

bool Report::expect_passed() const {
  return std::all_of(checks.begin(), checks.end(),
                     [](const Check& c) { return c.kind != CheckKind::expect || c.passed; });
}

std::vector<std::string> Report::headline_metric_keys() const {
  if (!headline_metrics.empty()) return headline_metrics;
  std::vector<std::string> keys;
  for (const auto& c : checks) {
    if (c.kind != CheckKind::expect) continue;
    for (const auto& key : c.depends_on) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return keys;
}

double Report::compare_tolerance_of(const Metric& metric) const {
  return metric.compare_tolerance.value_or(compare_tolerance.value_or(kDefaultCompareTolerance));
}

Summary Metric::summary() const {
  const double sum = std::accumulate(samples.begin(), samples.end(), 0.0);
  const auto& c = summary_cache_;
  if (!c || c->data != samples.data() || c->size != samples.size() || !(c->sum == sum)) {
    summary_cache_ = SummaryCache{samples.data(), samples.size(), sum, summarize(samples)};
  }
  return summary_cache_->summary;
}

void Report::resolve_noisy_inputs() {
  for (auto& section : sections) {
    for (auto& m : section.metrics) {
      m.noisy_inputs.clear();
      for (const auto& key : m.inputs) {
        const Metric* input = find_metric(key);
        if (input != nullptr && input->noisy()) m.noisy_inputs.push_back(key);
      }
    }
  }
}

std::string utc_timestamp_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace cudalab
