// Runs that are one run: a copy of a built-in reference run, or the same run handed in by two
// students. Three marks tell it, each something two honest runs never share: the run id (128
// random bits stamped when the run was made), the digest (SHA-256 over the whole run), and the
// measurements themselves (every sample of every metric, to the last bit: two real runs of a
// timing never agree in hundreds of samples). The last catches a copy whose identity was changed
// and whose digest was recomputed; a run with too few samples to tell (lesson 01's device facts)
// has no such mark.
#pragma once

#include <optional>
#include <string>

#include "common/report/report_json.hpp"

namespace cudalab {

// Fewer samples than this in the whole run and its measurements are no mark.
inline constexpr std::size_t kMinSamplesForMark = 8;

struct RunMarks {
  std::string run_id;        // "" when the run carries none (recorded before runs did)
  std::string digest;        // as the file states it, matching or not
  std::string measurements;  // SHA-256 of every metric's key and samples; "" with too few samples
};

RunMarks marks_of(const Report& report);

// What `a` and `b` share that only one run could have: "the same run id", "the same digest" or
// "the same measurements" (the strongest first); "" when nothing.
std::string shared_mark(const RunMarks& a, const RunMarks& b);

struct ReferenceCopy {
  std::string reference;  // "04-priority": the built-in reference run it copies
  std::string mark;       // what they share (shared_mark)
};

// The built-in reference run that `report` is a copy of; nullopt when none. The reference runs'
// marks are worked out once per process.
std::optional<ReferenceCopy> copied_reference(const Report& report);

// The line `show --stable` and `--portable` print first when a run is not an original, intact
// run, so that a diff against the reference is never clean: "integrity modified: ...",
// "integrity unsealed: ...", "integrity copy of the built-in reference run 04-priority (the same
// digest)". "" for an intact run of its own, and for a built-in reference run shown as itself.
std::string integrity_line(const SavedRun& run, bool built_in);

// The same line for a file that could not be read as a run: "integrity unreadable: why".
std::string unreadable_integrity_line(const std::string& why);

}  // namespace cudalab
