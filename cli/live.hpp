// Live mode (`cudalab live 03`, `cudalab 03 --live`): the lesson runs once, then a prompt takes
// changes (`streams 8`, `size 16MiB`, `timeline on`, `lang zh`, `reset`, `help`, `quit`) and
// runs again in place, printing the headline metrics beside the previous and the first run. A
// change edits the Invocation (through the same flag-table rows as the command line) and the run
// goes through the same run-and-emit path; nothing is parsed again. Bad values get the command
// line's one-line errors and never end the sitting; Ctrl-C stops a running experiment and
// returns to the prompt, and at the prompt it exits.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/invocation.hpp"
#include "cli/line_reader.hpp"

namespace cudalab {

// How one run is made: run_stamped_lesson on a GPU; tests pass a lesson that needs none.
using LiveRunner = std::function<Report(const LessonSetup&, const Invocation&)>;

// The sitting on `reader` (commands) and `out` (everything printed); returns the exit code.
int run_sitting(Invocation& inv, const LiveRunner& runner, LineReader& reader, std::ostream& out);

// The common flags a change at the prompt may make; the others only on the command line.
std::vector<std::string> live_flag_names();

// The comparison printed after each re-run (pure, for tests): the headline metrics
// (Report::headline_metric_keys) of this run beside the previous and the first, in `lang`.
std::vector<std::string> compare_live_runs(const Report& now, const Report& previous, const Report& first,
                                           std::size_t width, Lang lang = Lang::en);

}  // namespace cudalab
