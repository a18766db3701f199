// B held to A metric by metric and check by check, and the verdict (compare.hpp).
#include "common/grading/compare.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"

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
  row.spread = std::max(spread_of(c.a->report, ma), spread_of(c.b->report, mb));
  if (override_tolerance) {
    row.tolerance = *override_tolerance;
  } else {
    const Metric& declared = ma != nullptr ? *ma : *mb;
    const double lesson = c.a->report.compare_tolerance_of(declared);
    // Two clean runs whose figure wanders a little are held to that wandering, up to twice the
    // lesson's tolerance. A disturbed run's spread is the disturbance itself: widening to it would
    // let a figure ruined by a shared GPU pass, so beside a disturbance the lesson's own holds.
    const double widest = c.disturbed() ? lesson : kMaxToleranceWidening * lesson;
    row.tolerance = std::min(std::max(lesson, row.spread), widest);
    row.capped = row.spread > row.tolerance;
  }
  row.headline = contains(headline_keys, key);
  row.other_gpu = c.other_gpus() && depends_on_gpu(row.unit);
  return row;
}

// "headline metric X is 0.37× A's (tolerance ±30%, the most it may widen to: the runs spread 112%)"
// Beside a disturbance the tolerance did not widen at all: "(tolerance ±15%, not widened beside a
// disturbance: the runs spread 112%)".
Message out_of_tolerance(const MetricComparison& m, bool disturbed) {
  const MessageArg percent = arg("percent", percent_text(m.tolerance));
  const MessageArg spread = arg("spread", fmt::format("{:.0f}%", 100.0 * m.spread));
  const Message tolerance =
      !m.capped  ? msg("(tolerance ±{percent})", percent)
      : disturbed ? msg("(tolerance ±{percent}, not widened beside a disturbance: the runs spread {spread})", percent,
                        spread)
                  : msg("(tolerance ±{percent}, the most it may widen to: the runs spread {spread})", percent, spread);
  const auto ratio = m.ratio();  // none when A's median is 0
  if (ratio) {
    return msg("headline metric {key} is {ratio}× A's {tolerance}", arg("key", m.key),
               arg("ratio", fmt::format("{:.2f}", *ratio)), arg("tolerance", tolerance));
  }
  return msg("headline metric {key} is {value} where A's is 0 {tolerance}", arg("key", m.key),
             arg("value", format_number(*m.b)), arg("tolerance", tolerance));
}

Message regression(const CheckComparison& x) {
  return msg("headline expect {key} passed in A and fails in B", arg("key", x.key));
}

// The headline judgements that did not hold: figures out of tolerance, headline checks that flipped.
std::vector<Message> headline_misses(const Comparison& c) {
  std::vector<Message> out;
  for (const auto& m : c.metrics) {
    if (m.headline && !m.other_gpu && m.a && m.b && !m.within()) out.push_back(out_of_tolerance(m, c.disturbed()));
  }
  for (const auto& x : c.checks) {
    if (x.headline && x.regressed()) out.push_back(regression(x));
  }
  return out;
}

// "NVIDIA H200", or "NVIDIA H100 80GB HBM3 + NVIDIA H100 80GB HBM3" for a run on two.
std::string gpu_names(const Report& r) {
  std::vector<std::string> names;
  for (const auto& d : r.devices) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : " + ") + name;
  return joined;
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

Message source_words(const SavedRun& run) {
  constexpr std::string_view kBuiltIn = "built-in ";  // graders.cpp, load_run_argument
  if (run.built_in && run.source.rfind(kBuiltIn, 0) == 0) {
    return msg("built-in {lesson}", arg("lesson", run.source.substr(kBuiltIn.size())));
  }
  return verbatim(run.source);
}

bool depends_on_gpu(const std::string& unit) {
  static const char* const kGpuUnits[] = {"ns", "us", "µs", "ms", "s", "GB/s", "MB/s", "TB/s", "B", "KiB", "MiB", "GiB"};
  return std::any_of(std::begin(kGpuUnits), std::end(kGpuUnits), [&](const char* u) { return unit == u; });
}

std::string percent_text(double relative) {
  const double percent = 100.0 * relative;
  return percent >= 100.0 ? fmt::format("{:.0f}%", percent) : fmt::format("{:.3g}%", percent);
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

std::vector<Message> Comparison::failures() const {
  std::vector<Message> out;
  for (const auto* run : {a, b}) {
    const std::string which = run == a ? "A" : "B";  // the run's letter, as the table heads it
    if (run->integrity.state == Integrity::modified) {
      out.push_back(msg("{run} {integrity}", arg("run", which), arg("integrity", run->integrity.describe())));
    }
    for (const auto& check : run->report.checks) {
      if (check.kind == CheckKind::verify && !check.passed) {
        out.push_back(msg("{run}: verify {key} failed", arg("run", which), arg("key", check.key)));
      }
    }
  }
  for (const auto& m : metrics) {
    if (m.headline && (!m.a || !m.b)) {
      out.push_back(msg("headline metric {key} is missing from {run}", arg("key", m.key),
                        arg("run", std::string(m.a ? "B" : "A"))));
    }
  }
  if (!disturbed()) {
    for (auto& miss : headline_misses(*this)) out.push_back(std::move(miss));
  }
  return out;
}

std::vector<Message> Comparison::undecided() const {
  if (!disturbed()) return {};
  return headline_misses(*this);
}

// A disturbed run never holds: beside a busy tenant lesson 02 read 50.9 GB/s, 7% under its
// reference and inside the tolerance, yet the tenant's copies shared its link the whole time.
CompareVerdict Comparison::verdict() const {
  if (!failures().empty()) return CompareVerdict::fails;
  return disturbed() ? CompareVerdict::inconclusive : CompareVerdict::holds;
}

Comparison compare_runs(const SavedRun& a, const SavedRun& b, std::optional<double> tolerance_override) {
  if (a.report.lesson_number != b.report.lesson_number) {
    throw UsageError(msg("compare: {a} is lesson {lesson_a} and {b} is lesson {lesson_b}; compare runs of one lesson",
                         arg("a", source_words(a)), arg("lesson_a", fmt::format("{:02d}", a.report.lesson_number)),
                         arg("b", source_words(b)), arg("lesson_b", fmt::format("{:02d}", b.report.lesson_number))));
  }
  Comparison c;
  c.a = &a;
  c.b = &b;
  list_param_changes(c);

  c.disturbance_a = a.report.disturbance();
  c.disturbance_b = b.report.disturbance();
  c.gpus_a = gpu_names(a.report);
  c.gpus_b = gpu_names(b.report);
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
      row.headline = check.kind == CheckKind::expect &&
                     (contains(a.report.headline_checks, check.key) || contains(b.report.headline_checks, check.key));
      c.checks.push_back(row);
    }
  }
  return c;
}

}  // namespace cudalab
