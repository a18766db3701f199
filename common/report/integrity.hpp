// Tamper evidence for saved runs. When the CLI finishes a run it seals it: a SHA-256 digest over
// the run's own JSON form (measurements, checks, params, device, version, date). A file edited
// afterwards no longer matches its digest, and a check whose verdict contradicts the run's own
// numbers is caught by recomputing it. The digest has no secret key: it catches accidental edits
// and naive tampering, not someone who edits the file and recomputes the digest. What a student
// cannot make is the class seal (class_seal.hpp), a keyed HMAC beside it.
#pragma once

#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"
#include "common/report/report.hpp"

namespace cudalab {

enum class Integrity {
  intact,    // the digest matches and every recomputable check agrees with the run's numbers
  unsealed,  // recorded before runs carried a digest; the recomputable checks agree
  modified,  // the digest does not match, was removed, or a check contradicts the run's numbers
};
const char* integrity_name(Integrity integrity);  // "intact", "unsealed", "modified"

struct IntegrityVerdict {
  Integrity state = Integrity::unsealed;
  std::vector<Message> problems;  // why it is modified, one short phrase each
  // "modified: its digest was removed; ...": the state's name, and the problems when there are
  // any, listed for `lang` (a Chinese list takes the full-width semicolon).
  Message describe() const;
};

// The bytes a digest or a seal covers: run.dump() without the members named in `left_out`.
void write_covered_bytes(std::ostream& out, const nlohmann::json& run, std::initializer_list<std::string_view> left_out);

// "sha256:<hex>" over a run's JSON form without its "digest" field. nlohmann::json keeps object
// keys sorted and writes numbers that read back to the same double, so the digest of a file
// read back equals the digest the run was sealed with.
std::string run_digest(const nlohmann::json& run);

// Sets report.class_seal when this process holds the class key (class_seal.hpp), then report.digest
// over everything else in it. Call last, when nothing more is stamped.
void seal(Report& report);

// The verdict a check's own counts imply, where it can be re-derived without a GPU: a verify
// check that carries {correct, checked} passes exactly when checked > 0 and correct == checked.
// nullopt when the check counts nothing (a shape, a status; runs recorded before checks carried
// counts) or is an expect check (its threshold lives in the lesson's code). Never reads prose.
std::optional<bool> recompute_check(const Check& check);

// `raw` is the JSON object the report was read from.
IntegrityVerdict assess_integrity(const Report& report, const nlohmann::json& raw);

}  // namespace cudalab
