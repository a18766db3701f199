// What a lesson is told when it runs: which device, how many repetitions, which language, and
// whether to trace. Built once by the CLI from the invocation.
#pragma once

#include <string>

#include "common/core/lang.hpp"
#include "common/core/repetitions.hpp"

namespace cudalab {

struct RunContext {
  int device = 0;
  bool device_given = false;  // --device was passed (a lesson over all devices then shows only that one)
  Repetitions reps;
  Lang lang = Lang::en;
  bool timeline = false;   // --timeline
  std::string trace_path;  // --trace FILE (written by the CLI from Report::timelines)

  // True when the lesson should make one extra, untimed traced run (TraceSession) and put its
  // Timeline in the report. Timed runs never happen inside a TraceSession.
  bool tracing() const { return timeline || !trace_path.empty(); }
};

}  // namespace cudalab
