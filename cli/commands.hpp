// The commands beside the lessons: list, all, show, and running one lesson.
#pragma once

#include <string>
#include <vector>

#include "course.hpp"
#include "cli/options.hpp"

namespace cudalab {

struct LessonRun {
  const CourseEntry* entry;
  Lesson* lesson;
  std::string preset_error;  // `all` with --config: this lesson's section was refused; it does not run
};

struct ShowOptions {
  std::string path;
  CommonOptions output;  // only the output flags are registered
};

void add_show_options(CLI::App& show, ShowOptions& options);

// One lesson run with everything every report carries stamped on it (device, preflight,
// classroom snapshot); the building blocks of run_one, run_all and live mode.
RunContext make_context(const CommonOptions& options, const Lesson& lesson);
Report run_lesson(const LessonRun& run, const RunContext& ctx, int wait_idle_s);

int print_course_list(const std::string& lang = {});  // --lang, else from the environment
int run_one(const LessonRun& run, const CommonOptions& options);
int run_all(const std::vector<LessonRun>& runs, const CommonOptions& options);
int show_saved_run(const ShowOptions& options);

}  // namespace cudalab
