// Runs read back from a file of the user's, ready to print: one run or the array `cudalab all
// --json` writes, each judged for integrity on its bytes as written, every string made printable.
// Student files are untrusted: a size limit, regular files only, never a blocking open.
#pragma once

#include <string>
#include <vector>

#include "common/report/class_seal.hpp"
#include "common/report/integrity.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// A run read back from a file, ready to print: every string in it has its control characters
// made visible (text_format.hpp, printable()), so a crafted label cannot drive the terminal.
struct SavedRun {
  std::string source;  // the file name, or "built-in NN-lesson-name"
  Report report;
  IntegrityVerdict integrity;  // judged on the file's contents as written
  ClassSealVerdict class_seal;  // against the class key this process holds (class_seal.hpp)
  bool built_in = false;       // a reference run built into the binary, named by its lesson
};

// The largest real run is 132 KB (lesson 02's reference run, timelines included; the busiest
// timeline of the course has 234 operations) and `cudalab all --json` of the whole course about
// 530 KB. 16 MiB is over a hundred times the largest run and thirty times the whole course, and
// a file at the limit still reads and renders in about a second; a bigger
// one is refused before a byte of it is read, so one submission cannot stall a class's grading.
inline constexpr std::size_t kMaxRunFileBytes = std::size_t(16) << 20;

// The runs in `text`: one run, or the array of runs `cudalab all --json` writes. Throws
// UsageError, one line naming `source` and the problem, for anything that is not a cudalab run
// (invalid or truncated JSON, null, an empty array, a wrong schema).
std::vector<SavedRun> parse_saved_runs(const std::string& text, const std::string& source);

// The same from a file. Only regular files are read (never blocks on a FIFO or a device); a
// directory or a file over 16 MiB is a UsageError.
std::vector<SavedRun> read_saved_runs(const std::string& path);

// read_saved_runs without the verdicts.
std::vector<Report> load_runs(const std::string& path);

}  // namespace cudalab
