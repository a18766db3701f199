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

Message Metric::noise_reason() const {
  if (steady(samples, tolerance())) return {};
  const Summary s = summary();
  if (s.inlier_spread > tolerance()) {
    return msg("its samples spread {spread}%, more than the {limit}% it may",
               arg("spread", fmt::format("{:.0f}", 100.0 * s.inlier_spread)),
               arg("limit", fmt::format("{:.0f}", 100.0 * tolerance())));
  }
  const std::size_t wide = wide_outliers(samples, s, tolerance());
  if (too_many_outliers(wide, samples.size())) {
    return msg("{outliers} of its {samples} samples are outliers far from the rest, more than one in {share}",
               arg("outliers", wide), arg("samples", samples.size()), arg("share", kOutlierShareLimit));
  }
  return {};
}

const Metric* Report::noise_source(const Metric& metric) const {
  const Metric* source = &metric;
  // A chain of derived figures is short; the bound only guards a file whose inputs form a loop.
  for (int depth = 0; depth < 8; ++depth) {
    if (source->noisy_samples()) return source;
    if (source->noisy_inputs.empty()) return nullptr;
    const Metric* input = find_metric(source->noisy_inputs.front());
    if (input == nullptr) return nullptr;
    source = input;
  }
  return nullptr;
}

// The preflight's finding without its advice: "3 other processes used the GPU while the lesson
// measured" (its summary's "found" argument; the whole summary in a run of schema 1).
std::vector<Message> Report::disturbance() const {
  std::vector<Message> reasons;
  for (const auto& item : environment) {
    if (item.key != "other_processes" || item.ok) continue;
    const Message* found = item.summary.find_arg("found");
    reasons.push_back(found != nullptr ? *found : item.summary);
  }
  for (const auto& key : headline_metric_keys()) {
    const Metric* m = find_metric(key);
    if (m == nullptr || !m->noisy()) continue;
    const Metric* source = noise_source(*m);
    if (source == m) {
      reasons.push_back(msg("headline {key} is noisy: {why}", arg("key", key), arg("why", m->noise_reason())));
    } else if (source != nullptr) {
      reasons.push_back(msg("headline {key} is computed from {source}, which is noisy: {why}", arg("key", key),
                            arg("source", source->key), arg("why", source->noise_reason())));
    } else {
      reasons.push_back(msg("headline {key} is noisy", arg("key", key)));
    }
  }
  return reasons;
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
