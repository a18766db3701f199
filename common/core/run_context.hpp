// What a lesson is told when it runs: which device, how many repetitions, which language, and
// whether to trace. Built once by the CLI from the invocation.
#pragma once

#include <optional>
#include <string>

#include "common/core/lang.hpp"
#include "common/core/rank_environment.hpp"
#include "common/core/repetitions.hpp"

namespace cudalab {

class Rendezvous;

struct RunContext {
  int device = 0;
  bool device_given = false;  // --device was passed (a lesson over all devices then shows only that one)
  Repetitions reps;
  Lang lang = Lang::en;
  bool timeline = false;   // --timeline
  std::string trace_path;  // --trace FILE (written by the CLI from Report::timelines)
  // One process per GPU (Lesson::runs_as_ranks): this process's rank, measuring on `device`
  // only, and how it trades text with the other ranks (queue/rendezvous.hpp, owned by the CLI).
  // Unset when one process drives every GPU.
  std::optional<RankEnvironment> rank;
  Rendezvous* rendezvous = nullptr;

  // True when the lesson should make one extra, untimed traced run (TraceSession) and put its
  // Timeline in the report. Timed runs never happen inside a TraceSession.
  bool tracing() const { return timeline || !trace_path.empty(); }
};

}  // namespace cudalab
