// A one-line progress indicator on stderr while a lesson measures: which lesson and section, how
// long so far, how many runs. Only on a terminal, only for the text form, and only once the work
// has taken longer than half a second; the line is erased when the lesson ends, so it never
// mixes into what the lesson prints.
#pragma once

#include <string>

namespace cudalab::progress {

// Called by the CLI: whether to show progress at all (stderr is a terminal, text output).
void enable(bool on);
// A lesson starts (or a section of it, when the lesson names one).
void begin(const std::string& what);
void section(const std::string& name);
// One more timed or warm-up run; redraws at most ten times a second.
void tick();
// The lesson is done: erase the line.
void end();

// The line as it would be drawn, for tests.
std::string line_for(const std::string& what, const std::string& section, double seconds, long runs, int frame);

}  // namespace cudalab::progress
