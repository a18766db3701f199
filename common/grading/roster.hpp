// A class's roster (`[grade] roster = "students.csv"`): the students who must appear in the
// gradebook whether or not they handed anything in, with the ids an LMS import matches on
// (Canvas's "SIS User ID", Moodle's email). The file is the instructor's, but it is read as any
// file cudalab did not write: bounded, line by line, no regex.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab {

struct RosterStudent {
  std::string user;   // the name `grade` shows for the student's hand-ins: "alice", or "uid 10001"
  std::string id;     // the LMS's student id (Canvas: SIS User ID)
  std::string name;   // as the LMS shows it
  std::string email;  // Moodle matches on it
};

inline constexpr std::size_t kMaxRosterBytes = std::size_t(1) << 20;
inline constexpr std::size_t kMaxRosterStudents = 10000;

// The rows of a CSV whose header names the columns (user, id, name, email, in any order; user
// is required; "SIS User ID" is read as id), RFC 4180 quoting. Throws UsageError naming the file
// (`file`, as the user typed it) and the line: a missing user column, a row with another number of
// fields, an empty or repeated user, an unclosed quote, more than kMaxRosterStudents rows.
std::vector<RosterStudent> parse_roster(std::string_view text, const std::string& file);

}  // namespace cudalab
