#include "common/report/integrity.hpp"

#include <algorithm>

#include "common/core/text_format.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/digest.hpp"
#include "common/report/report_json.hpp"

namespace cudalab {

namespace {

constexpr const char* kDigestPrefix = "sha256:";

// Builds that seal their runs write "version+commit"; older builds wrote the bare version.
bool made_by_a_sealing_build(const Report& report) { return report.tool_version.find('+') != std::string::npos; }

}  // namespace

const char* integrity_name(Integrity integrity) {
  switch (integrity) {
    case Integrity::intact: return "intact";
    case Integrity::unsealed: return "unsealed";
    case Integrity::modified: return "modified";
  }
  return "?";
}

Message IntegrityVerdict::describe() const {
  if (problems.empty()) return integrity_name(state);
  const Message listed = join(problems, "; ");  // "；" in Chinese, as every list (Catalogue::render)
  // Problems make a run modified (assess_integrity); a verdict put together by hand says its own state.
  if (state == Integrity::modified) return msg("modified: {problems}", arg("problems", listed));
  return msg("{state}: {problems}", arg("state", integrity_name(state)), arg("problems", listed));
}

void write_covered_bytes(std::ostream& out, const nlohmann::json& run, std::initializer_list<std::string_view> left_out) {
  // The bytes of run.dump() without the members left out, streamed: neither a copy of the run nor
  // its text is made (a run may hold hundreds of megabytes of samples).
  if (!run.is_object()) {
    out << run;
    return;
  }
  char separator = '{';
  for (const auto& [key, value] : run.items()) {
    if (std::find(left_out.begin(), left_out.end(), key) != left_out.end()) continue;
    out << separator << nlohmann::json(key) << ':' << value;
    separator = ',';
  }
  out << (separator == '{' ? "{}" : "}");
}

std::string run_digest(const nlohmann::json& run) {
  Sha256 sha;
  HashingStream out(sha);
  write_covered_bytes(out, run, {"digest"});
  out.flush();
  return kDigestPrefix + sha.finish_hex();
}

void seal(Report& report) {
  report.digest.clear();
  report.class_seal.clear();
  nlohmann::json run = report_to_json(report);
  report.class_seal = make_class_seal(run);  // "" when this process holds no class key
  if (!report.class_seal.empty()) run["class_seal"] = report.class_seal;
  report.digest = run_digest(run);  // over the class seal too
}

std::optional<bool> recompute_check(const Check& check) {
  if (check.kind != CheckKind::verify || !check.count) return std::nullopt;
  return check.count->all_correct();
}

IntegrityVerdict assess_integrity(const Report& report, const nlohmann::json& raw) {
  IntegrityVerdict verdict;
  if (!report.digest.empty()) {
    if (report.digest != run_digest(raw)) verdict.problems.push_back("its digest does not match its contents");
  } else if (made_by_a_sealing_build(report)) {
    verdict.problems.push_back("its digest was removed");
  }
  for (const auto& check : report.checks) {
    const auto recomputed = recompute_check(check);
    if (recomputed && *recomputed != check.passed) {
      verdict.problems.push_back(msg("verify {key} says {claimed} but its own count says {counted}",
                                     arg("key", printable_value(check.key)), arg("claimed", check.passed ? "pass" : "FAIL"),
                                     arg("counted", *recomputed ? "pass" : "FAIL")));
    }
  }
  verdict.state = !verdict.problems.empty() ? Integrity::modified
                  : report.digest.empty()   ? Integrity::unsealed
                                            : Integrity::intact;
  return verdict;
}

}  // namespace cudalab
