// The marks that tell one run handed in twice, or a reference run copied (copies.hpp).
#include "common/grading/copies.hpp"

#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/report/digest.hpp"
#include "common/report/reference_runs.hpp"

namespace cudalab {

namespace {

std::string measurement_mark(const Report& report) {
  std::size_t samples = 0;
  Sha256 sha;
  for (const auto& section : report.sections) {
    for (const auto& metric : section.metrics) {
      sha.update(metric.key);
      sha.update(std::string_view("\0", 1));
      for (const double sample : metric.samples) {
        char bits[sizeof sample];
        std::memcpy(bits, &sample, sizeof sample);  // the exact value: a rounded copy is no copy
        sha.update(std::string_view(bits, sizeof bits));
      }
      samples += metric.samples.size();
    }
  }
  return samples >= kMinSamplesForMark ? sha.finish_hex() : std::string();
}

struct ReferenceMarks {
  std::string name;
  RunMarks marks;
};

const std::vector<ReferenceMarks>& reference_marks() {
  static const std::vector<ReferenceMarks> marks = [] {
    std::vector<ReferenceMarks> out;
    for (const auto* run = detail::kEmbeddedRuns; run->name != nullptr; ++run) {
      try {
        for (const auto& saved : parse_saved_runs(run->json, run->name)) out.push_back({run->name, marks_of(saved.report)});
      } catch (const std::exception&) {
        // a reference this build cannot read marks nothing; reference_runs_test reads every one
      }
    }
    return out;
  }();
  return marks;
}

}  // namespace

RunMarks marks_of(const Report& report) {
  return RunMarks{report.provenance ? report.provenance->run_id : std::string(), report.digest,
                  measurement_mark(report)};
}

std::string shared_mark(const RunMarks& a, const RunMarks& b) {
  if (!a.run_id.empty() && a.run_id == b.run_id) return "the same run id";
  if (!a.digest.empty() && a.digest == b.digest) return "the same digest";
  if (!a.measurements.empty() && a.measurements == b.measurements) return "the same measurements";
  return {};
}

std::optional<ReferenceCopy> copied_reference(const Report& report) {
  const RunMarks mine = marks_of(report);
  for (const auto& reference : reference_marks()) {
    std::string mark = shared_mark(mine, reference.marks);
    if (!mark.empty()) return ReferenceCopy{reference.name, std::move(mark)};
  }
  return std::nullopt;
}

std::string integrity_line(const SavedRun& run, bool built_in) {
  switch (run.integrity.state) {
    case Integrity::modified: return "integrity " + run.integrity.describe().en();
    case Integrity::unsealed: return "integrity unsealed: recorded before runs carried a digest";
    case Integrity::intact: break;
  }
  if (built_in) return {};
  const auto copy = copied_reference(run.report);
  return copy ? fmt::format("integrity copy of the built-in reference run {} ({})", copy->reference, copy->mark) : "";
}

std::string unreadable_integrity_line(const std::string& why) { return "integrity unreadable: " + why; }

}  // namespace cudalab
