#include "common/report/integrity.hpp"

#include <algorithm>
#include <cstdint>
#include <regex>

#include <fmt/format.h>

#include "common/report/report_json.hpp"
#include "common/report/sha256.hpp"

namespace cudalab {

namespace {

constexpr const char* kDigestPrefix = "sha256:";

std::uint64_t parse_count(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  return text.size() > 19 ? UINT64_MAX : std::stoull(text);
}

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

std::string IntegrityVerdict::describe() const {
  std::string text = integrity_name(state);
  for (std::size_t i = 0; i < problems.size(); ++i) text += (i == 0 ? ": " : "; ") + problems[i];
  return text;
}

std::string run_digest(const nlohmann::json& run) {
  nlohmann::json content = run;
  if (content.is_object()) content.erase("digest");
  return kDigestPrefix + sha256_hex(content.dump());
}

void seal(Report& report) {
  report.digest.clear();
  report.digest = run_digest(report_to_json(report));
}

std::optional<bool> recompute_check(const Check& check) {
  if (check.kind != CheckKind::verify) return std::nullopt;
  static const std::regex n_of_m(R"(([0-9][0-9,]*) of ([0-9][0-9,]*))");
  std::optional<bool> verdict;
  for (auto it = std::sregex_iterator(check.summary.begin(), check.summary.end(), n_of_m); it != std::sregex_iterator();
       ++it) {
    const std::uint64_t correct = parse_count((*it)[1].str());
    const std::uint64_t checked = parse_count((*it)[2].str());
    verdict = verdict.value_or(true) && checked > 0 && correct == checked;
  }
  return verdict;
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
      verdict.problems.push_back(
          fmt::format("verify {} says {} but its own count says {}", check.key, check.passed ? "pass" : "FAIL",
                      *recomputed ? "pass" : "FAIL"));
    }
  }
  verdict.state = !verdict.problems.empty() ? Integrity::modified
                  : report.digest.empty()   ? Integrity::unsealed
                                            : Integrity::intact;
  return verdict;
}

}  // namespace cudalab
