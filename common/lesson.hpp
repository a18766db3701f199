// What every lesson is to the command line: its own flags, its default repetitions, and a run
// that returns a Report. The course order, numbers and titles live in cli/course.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include "notes.hpp"
#include "report.hpp"
#include "timing.hpp"

namespace cudalab {

struct RunContext {
  int device = 0;
  bool device_given = false;  // --device was passed (device-query then shows only that one)
  Repetitions reps;
  Lang lang = Lang::en;
  bool timeline = false;   // --timeline
  std::string trace_path;  // --trace FILE (written by the CLI from Report::timelines)

  // True when the lesson should make one extra, untimed traced run (TraceSession) and put its
  // Timeline in the report. Timed runs never happen inside a TraceSession.
  bool tracing() const { return timeline || !trace_path.empty(); }
};

class Lesson {
 public:
  virtual ~Lesson() = default;
  // Lesson-specific flags, bound to members of the lesson object.
  virtual void add_options(CLI::App& app) = 0;
  virtual Repetitions default_repetitions() const { return {}; }
  // Runs the experiment on ctx.device. Throws WaivedError / RuntimeError / UsageError.
  virtual Report run(const RunContext& ctx) = 0;
};

}  // namespace cudalab
