#include "common/report/compare.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/core/errors.hpp"

namespace cudalab {

namespace {

std::vector<const Metric*> metrics_of(const Report& r) {
  std::vector<const Metric*> out;
  for (const auto& s : r.sections) {
    for (const auto& m : s.metrics) out.push_back(&m);
  }
  return out;
}

const Check* find_check(const Report& r, const std::string& key) {
  for (const auto& c : r.checks) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

std::optional<double> median_of_metric(const Metric* m) {
  if (m == nullptr || m->samples.empty()) return std::nullopt;
  return m->summary().median;
}

// The run-to-run noise a metric carries: its samples' inlier spread, or for a figure computed
// from others (a speed-up from two timings) the sum of its inputs' spreads, as a ratio's relative
// error is about the sum of its parts'.
double spread_of(const Report& r, const Metric* m, int depth = 0) {
  if (m == nullptr) return 0.0;
  if (m->samples.size() >= 3) return m->summary().inlier_spread;
  double sum = 0.0;
  if (depth < 8) {
    for (const auto& key : m->inputs) sum += spread_of(r, r.find_metric(key), depth + 1);
  }
  return sum;
}

bool contains(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

MetricComparison compare_metric(const Comparison& c, const std::string& key, std::optional<double> override_tolerance,
                                const std::vector<std::string>& headline_keys) {
  const Metric* ma = c.a->report.find_metric(key);
  const Metric* mb = c.b->report.find_metric(key);
  MetricComparison row;
  row.key = key;
  row.unit = ma != nullptr ? ma->unit : mb->unit;
  row.a = median_of_metric(ma);
  row.b = median_of_metric(mb);
  if (override_tolerance) {
    row.tolerance = *override_tolerance;
  } else {
    const Metric& declared = ma != nullptr ? *ma : *mb;
    row.tolerance = std::max({c.a->report.compare_tolerance_of(declared), spread_of(c.a->report, ma),
                              spread_of(c.b->report, mb)});
  }
  row.headline = contains(headline_keys, key);
  return row;
}

void list_param_changes(Comparison& c) {
  const auto& pa = c.a->report.params;
  const auto& pb = c.b->report.params;
  for (const auto& p : pa) {
    const auto other = std::find_if(pb.begin(), pb.end(), [&](const Param& q) { return q.name == p.name; });
    const std::string b_value = other == pb.end() ? "" : other->value;
    if (b_value != p.value) c.params.push_back({p.name, p.value, b_value});
  }
  for (const auto& q : pb) {
    const bool in_a = std::any_of(pa.begin(), pa.end(), [&](const Param& p) { return p.name == q.name; });
    if (!in_a) c.params.push_back({q.name, "", q.value});
  }
}

}  // namespace

TableFormat parse_table_format(const std::string& text) {
  if (text == "text") return TableFormat::text;
  if (text == "md") return TableFormat::md;
  if (text == "csv") return TableFormat::csv;
  throw UsageError("--format: '" + text + "' is not one of text, md, csv");
}

std::optional<double> MetricComparison::ratio() const {
  if (!a || !b || *a == 0.0) return std::nullopt;
  return *b / *a;
}

bool MetricComparison::within() const {
  if (!a || !b) return false;
  if (*a == 0.0) return *b == 0.0;
  return std::fabs(*b / *a - 1.0) <= tolerance + 1e-12;
}

std::vector<std::string> Comparison::failures() const {
  std::vector<std::string> out;
  for (const auto* run : {a, b}) {
    const char* which = run == a ? "A" : "B";
    if (run->integrity.state == Integrity::modified) out.push_back(fmt::format("{} {}", which, run->integrity.describe()));
    for (const auto& check : run->report.checks) {
      if (check.kind == CheckKind::verify && !check.passed) {
        out.push_back(fmt::format("{}: verify {} failed", which, check.key));
      }
    }
  }
  for (const auto& m : metrics) {
    if (!m.headline || m.within()) continue;
    if (!m.a || !m.b) {
      out.push_back(fmt::format("headline metric {} is missing from {}", m.key, m.a ? "B" : "A"));
    } else {
      out.push_back(fmt::format("headline metric {} is {:.2f}× A's (tolerance ±{:.0f}%)", m.key, *m.ratio(),
                                100.0 * m.tolerance));
    }
  }
  return out;
}

Comparison compare_runs(const SavedRun& a, const SavedRun& b, std::optional<double> tolerance_override) {
  if (a.report.lesson_number != b.report.lesson_number) {
    throw UsageError(fmt::format("compare: {} is lesson {:02d} and {} is lesson {:02d}; compare runs of one lesson",
                                 a.source, a.report.lesson_number, b.source, b.report.lesson_number));
  }
  Comparison c;
  c.a = &a;
  c.b = &b;
  list_param_changes(c);

  std::vector<std::string> headline_keys = a.report.headline_metric_keys();
  for (const auto& key : b.report.headline_metric_keys()) {
    if (!contains(headline_keys, key)) headline_keys.push_back(key);
  }
  std::vector<std::string> keys;
  for (const auto* m : metrics_of(a.report)) keys.push_back(m->key);
  for (const auto* m : metrics_of(b.report)) {
    if (!contains(keys, m->key)) keys.push_back(m->key);
  }
  for (const auto& key : keys) c.metrics.push_back(compare_metric(c, key, tolerance_override, headline_keys));

  for (const auto* run : {&a.report, &b.report}) {
    for (const auto& check : run->checks) {
      const bool listed = std::any_of(c.checks.begin(), c.checks.end(),
                                      [&](const CheckComparison& x) { return x.key == check.key; });
      if (listed) continue;
      CheckComparison row{check.kind, check.key, std::nullopt, std::nullopt};
      if (const Check* x = find_check(a.report, check.key)) row.a = x->passed;
      if (const Check* x = find_check(b.report, check.key)) row.b = x->passed;
      c.checks.push_back(row);
    }
  }
  return c;
}

bool grade_passes(const GradeRow& row) {
  return row.run != nullptr && row.run->integrity.state != Integrity::modified && row.run->report.verify_passed();
}

}  // namespace cudalab
