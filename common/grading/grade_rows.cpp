// Whether a row of `cudalab grade` passes, and why not (grade_rows.hpp).
#include "common/grading/grade_rows.hpp"

namespace cudalab {

std::vector<Message> grade_problems(const GradeRow& row) {
  if (row.run == nullptr) return {msg("unreadable: {problem}", arg("problem", row.problem))};
  std::vector<Message> out = row.flags;
  if (row.run->integrity.state == Integrity::modified) out.push_back(row.run->integrity.describe());
  std::size_t verified = 0;
  for (const auto& check : row.run->report.checks) {
    if (check.kind != CheckKind::verify) continue;
    ++verified;
    if (!check.passed) out.push_back(msg("verify {key} failed", arg("key", check.key)));
  }
  // A run that checked nothing against the CPU proves nothing was computed right.
  if (verified == 0) out.push_back(Message("it has no verify check: nothing in it was checked against the CPU"));
  for (const auto& reason : row.run->report.disturbance()) out.push_back(msg("disturbed: {reason}", arg("reason", reason)));
  if (row.rerun) {
    for (const auto& why : row.rerun->problems) out.push_back(msg("the grader's re-run: {problem}", arg("problem", why)));
  }
  return out;
}

// "the grader's re-run: done (2.21× over one stream)".
Message rerun_words(const Rerun& rerun) {
  if (rerun.headline.empty()) return msg("the grader's re-run: {status}", arg("status", rerun.status));
  return msg("the grader's re-run: {status} ({figures})", arg("status", rerun.status), arg("figures", rerun.headline));
}

bool grade_passes(const GradeRow& row) { return row.superseded || grade_problems(row).empty(); }

}  // namespace cudalab
