// The class's drop folder, after nbgrader's inbound exchange: students add runs to it, and cannot
// list, read, replace or remove anyone else's. The kernel enforces that, given a folder made as
// docs/course.md says (`install -d -m 3733 -o INSTRUCTOR -g STAFF DIR`, then its default ACL):
//   - others may write and enter it but not list it (no r for others);
//   - the sticky bit: only a file's owner may rename or remove it;
//   - the setgid bit: every file takes the folder's group, the instructor's staff, which no
//     student is in; a run is created mode 0640, so its group (the staff) reads it and no
//     other student can;
//   - a default ACL (`setfacl -d -m u::rw,g::r,o::- DIR`): a file copied in by hand, which asks
//     for mode 0644, is made 0640 all the same, so classmates cannot read it by name.
// A file's owner is whoever handed it in: `grade` reads the submitter from the kernel, not from
// the run. Names carry the user, the lesson and the time, and a run never replaces another.
#pragma once

#include <string>

#include "cli/presets.hpp"
#include "common/core/message.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// The folder runs are handed into: [grade] drop of the class preset (--config), else
// $CUDALAB_CLASS_DIR; "" when neither names one.
std::string drop_folder_path(const ClassSettings* settings);

// Empty when `path` is a drop folder this user may hand runs into, else why not, in one line that
// says how the instructor fixes it. Only stat-like calls: nothing is created.
Message check_drop_folder(const std::string& path);

// Hands `run_text` (the run's JSON, `report` read from it) into the folder at `path`: a new
// file "USER-NN-lesson-YYYYMMDDTHHMMSSZ-XXXXXX.json", mode 0640, created so that it never
// replaces a file and is never seen half-written. Returns the file's name. Throws UsageError,
// one line, when the folder is unsafe or the file cannot be written.
std::string hand_in(const std::string& path, const std::string& run_text, const Report& report);

// The line a successful hand-in prints: "handed in 03-stream-overlap as NAME into DIR".
Message handed_in_line(const Report& report, const std::string& name, const std::string& path);

}  // namespace cudalab
