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
#include "cli/presets.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/workspace.hpp"

namespace cudalab {

enum class Command { course, lesson, all, live, show, compare, grade, submit, class_check, list, help, completion, exercise };

// Where a flag's value came from, in words: "flag", "preset {where}" ("class.toml:3
// [stream-overlap]"); a flag with none is "default".
using Origins = std::map<std::string, Message>;

// A value of a lesson's preset section that `cudalab all` leaves aside (the tour decides where its
// output goes, and asks no predictions): it applies when the lesson runs alone.
struct AloneOnly {
  std::string name;
  std::string value;
  Message origin;
};

// Under `cudalab all`, the common flags one lesson runs with: the tour's, then its own section's.
struct TourFlags {
  CommonFlags flags;
  Origins origins;
  std::vector<AloneOnly> alone_only;
};

// One lesson as configured: its params live in the Lesson object.
struct LessonSetup {
  const CourseEntry* entry = nullptr;
  std::unique_ptr<Lesson> lesson;
  Origins origins;           // the lesson's own flags
  Message preset_error;      // `all` with --config: its section was refused; it does not run
  TourFlags tour;            // `all` only
};

struct Invocation {
  Command command = Command::course;
  CommonFlags flags;
  Origins flag_origins;              // the common flags
  std::vector<LessonSetup> lessons;  // lesson and live: one; all: every built lesson
  OutputPlan output;                 // decided once, from flags and the environment
  std::vector<std::string> arguments;  // argv as typed: --ranks starts copies of the same command
  std::optional<PresetFile> presets;  // the class preset (--config), when one was given

  // The arguments of the commands that are not lessons.
  std::vector<std::string> runs;     // show, submit: one RUN; compare: the baseline, then the others
  std::string grade_dir;             // "": the class's drop folder
  bool gradebook = false;            // grade --gradebook: students × lessons only
  bool rerun = false;                // grade --rerun: the grader runs every exercise source again
  std::string feedback_dir;          // grade --feedback DIR: a markdown file per student; "" for none
  bool bom = false;                  // grade, compare --bom: a UTF-8 byte-order mark before CSV
  std::string tolerance;             // compare --tolerance, "" when not given
  std::string table_format = "text"; // compare: text | md | csv; grade: also gradescope
  std::string help_topic;
  bool manual = false;               // help --man
  std::string shell;                 // completion
  std::string class_action;          // class: "check"
  bool list_times = false;           // list --times

  // `cudalab exercise`: the exercise chosen (null for `exercise list`) and its own flags.
  struct ExerciseOptions {
    const ExerciseDescription* exercise = nullptr;
    std::string dir = kDefaultExerciseFolder;  // --dir: the student's exercise folder
    bool hint = false;                         // --hint: the next hint, and nothing else
    bool watch = false;                        // --watch: again whenever the file is saved
    double time_limit_s = 10;                  // --time-limit: the student's code, then killed
  } exercise;

  // [grade] of the class preset; null when there is none.
  const ClassSettings* class_settings() const { return presets && presets->grade ? &*presets->grade : nullptr; }
  const LessonSetup& lesson() const { return lessons.front(); }
  LessonSetup& lesson() { return lessons.front(); }
};

}  // namespace cudalab
