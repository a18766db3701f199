// Live mode (`cudalab live 03`, `cudalab 03 --live`): the lesson runs once, then a prompt takes
// parameter changes (`streams 8`, `size 16MiB`, `timeline on`, `lang zh`, `reset`, `help`,
// `quit`) and re-runs in place, printing the headline metrics beside the previous and the first
// run. Bad values get the command line's one-line errors and never end the sitting; Ctrl-C stops
// a running experiment and returns to the prompt, and at the prompt it exits.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/line_reader.hpp"

namespace cudalab {

// How one run is made: the CLI's run_lesson on a GPU; tests pass a lesson that needs none.
using LiveRunner = std::function<Report(const LessonRun&, const RunContext&, const CommonOptions&)>;

struct LiveSession {
  const CourseEntry* entry = nullptr;
  std::vector<std::string> args;  // the lesson's flags as typed: {"--streams", "4"}
  LiveRunner runner;
};

// Runs the sitting on `reader` (commands) and `out` (everything printed); returns the exit code.
int run_live(const LiveSession& session, LineReader& reader, std::ostream& out);

// The sitting with a terminal reader and the real runner (used by the CLI).
int run_live(const CourseEntry& entry, std::vector<std::string> args);

// The metrics a re-run is compared on: those with a prediction or a ratio unit, else the first
// few; at most eight.
std::vector<const Metric*> headline_metrics(const Report& report);

// The comparison printed after each re-run (pure, for tests).
std::vector<std::string> compare_runs(const Report& now, const Report& previous, const Report& first,
                                      std::size_t width);

}  // namespace cudalab
