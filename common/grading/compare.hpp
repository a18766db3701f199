// Two runs side by side, for instructors and graders: `cudalab compare A B...` holds each run B to
// a baseline A metric by metric, and says whether B reproduces A. A pure function of saved runs
// (report_json.hpp, SavedRun), so it works without a GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/report_json.hpp"

namespace cudalab {

// However widely two runs spread, `compare` holds a metric to at most this many times the
// lesson's own tolerance: beyond it a run is too noisy to judge, not close enough.
inline constexpr double kMaxToleranceWidening = 2.0;

// A relative tolerance as the percent `--tolerance` takes: 0.15 -> "15%", 0.001 -> "0.1%".
std::string percent_text(double relative);

// Where a run came from, for people: its file name (data), or "built-in 03-stream-overlap".
Message source_words(const SavedRun& run);

// Whether a figure in `unit` is the GPU's own (a time, a bandwidth, a size: "ms", "GB/s", "KiB"),
// so two GPUs' runs need not agree on it. Ratios, percents and counts ("x", "%", "copies") say
// how the lesson behaves, which the same code shows on any GPU: those are held across GPUs.
bool depends_on_gpu(const std::string& unit);

struct MetricComparison {
  std::string key;
  std::string unit;
  std::optional<double> a, b;  // medians; nullopt when that run has no such metric
  double tolerance = 0;        // relative: within when |b/a - 1| <= tolerance
  double spread = 0;           // the wider of the two runs' spreads for it (compare.cpp, spread_of)
  bool capped = false;         // that spread asked for more than kMaxToleranceWidening × the lesson's
  bool headline = false;       // a headline metric: out of tolerance fails the comparison
  // A and B ran on different GPUs and this figure depends on the GPU (depends_on_gpu): shown
  // beside each other, never held, whatever their ratio.
  bool other_gpu = false;

  std::optional<double> ratio() const;
  bool within() const;  // both present and within tolerance
};

struct CheckComparison {
  CheckKind kind = CheckKind::verify;
  std::string key;
  std::optional<bool> a, b;  // nullopt when that run has no such check
  bool headline = false;     // an expect check either run marks as its lesson's point

  bool regressed() const { return a.value_or(false) && !b.value_or(true); }  // passed in A, failed in B
};

enum class CompareVerdict {
  holds,         // both runs clean, and every headline judgement held
  inconclusive,  // A or B was disturbed: whether or not its figures stayed in tolerance, a run
                 // measured beside another process's work cannot vouch for the lesson
  fails,         // B does not hold: a verify failed, a run was modified, or a clean headline failed
};

struct ParamChange {
  std::string name, a, b;
};

struct Comparison {
  const SavedRun* a = nullptr;  // the baseline
  const SavedRun* b = nullptr;
  std::vector<ParamChange> params;       // only the params that differ
  std::vector<MetricComparison> metrics;  // every metric of either run, A's order first
  std::vector<CheckComparison> checks;    // every check of either run
  std::vector<Message> disturbance_a, disturbance_b;  // Report::disturbance() of each run
  std::string gpus_a, gpus_b;  // each run's GPU names, sorted, joined with " + " (data)

  // A and B ran on GPUs of different names: B is held to the figures that do not depend on the GPU.
  bool other_gpus() const { return gpus_a != gpus_b; }

  // Why B does not hold against A, one short phrase each, whatever the noise: a failed verify
  // check, a run modified after it was made, a missing headline metric; and, when both runs are
  // clean, a headline metric out of tolerance or a headline expect check that passed in A and
  // fails in B.
  std::vector<Message> failures() const;
  // The headline judgements that failed while A or B was disturbed: a figure measured beside
  // another process, or one too noisy to hold, cannot say whether B reproduces A.
  std::vector<Message> undecided() const;
  bool disturbed() const { return !disturbance_a.empty() || !disturbance_b.empty(); }
  CompareVerdict verdict() const;
  bool passed() const { return verdict() == CompareVerdict::holds; }
};

// B against A. Each metric's tolerance is `tolerance_override` when given; otherwise the lesson's
// (Report::compare_tolerance_of, from A), widened to the spread either run measured for it (a
// median known only to within its own run's noise cannot be held tighter than that), but never
// past kMaxToleranceWidening times the lesson's, and not at all when either run was disturbed.
// When A and B ran on different GPUs, a figure that depends on the GPU is shown and not held.
// Throws UsageError when the runs are of different lessons.
Comparison compare_runs(const SavedRun& a, const SavedRun& b, std::optional<double> tolerance_override);
// A Comparison points at its two runs: it must not outlive them, so a temporary run is refused
// (the sanitizers found a test holding a comparison of a run gone at the end of its statement).
Comparison compare_runs(SavedRun&& a, const SavedRun& b, std::optional<double> tolerance_override) = delete;
Comparison compare_runs(const SavedRun& a, SavedRun&& b, std::optional<double> tolerance_override) = delete;
Comparison compare_runs(SavedRun&& a, SavedRun&& b, std::optional<double> tolerance_override) = delete;

// Text and markdown in `lang`; CSV stays English (its cells are for programs).
std::string render_comparisons(const std::vector<Comparison>& comparisons, TableFormat format, std::size_t width,
                               Lang lang = Lang::en);

}  // namespace cudalab
