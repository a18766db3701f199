// What the user asked for, as one value: argv is parsed once, by CLI11, into an Invocation (the
// command, the lesson with its params, the common flags, presets merged in with where each value
// came from, and the OutputPlan), and everything after parsing reads this value. Live mode edits
// it at the prompt instead of parsing again.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/course.hpp"
#include "cli/flags.hpp"
#include "cli/output.hpp"

namespace cudalab {

enum class Command { course, lesson, all, live, show, compare, grade, list, help, completion };

// Where a flag's value came from: "default", "flag", "preset class.toml:3 [stream-overlap]".
using Origins = std::map<std::string, std::string>;

// One lesson as configured: its params live in the Lesson object.
struct LessonSetup {
  const CourseEntry* entry = nullptr;
  std::unique_ptr<Lesson> lesson;
  Origins origins;           // the lesson's own flags
  std::string preset_error;  // `all` with --config: its section was refused; it does not run
};

struct Invocation {
  Command command = Command::course;
  CommonFlags flags;
  Origins flag_origins;              // the common flags
  std::vector<LessonSetup> lessons;  // lesson and live: one; all: every built lesson
  OutputPlan output;                 // decided once, from flags and the environment
  std::vector<std::string> arguments;  // argv as typed: --ranks starts copies of the same command

  // The arguments of the commands that are not lessons.
  std::vector<std::string> runs;     // show: one RUN; compare: the baseline, then the others
  std::string grade_dir;
  std::string tolerance;             // compare --tolerance, "" when not given
  std::string table_format = "text"; // compare and grade: text | md | csv
  std::string help_topic;
  std::string shell;                 // completion
  bool list_times = false;           // list --times

  const LessonSetup& lesson() const { return lessons.front(); }
  LessonSetup& lesson() { return lessons.front(); }
};

}  // namespace cudalab
