#pragma once

namespace cudalab {

// The whole command line: parses, runs, renders, and returns the exit code (never exits, so
// tests can call it in-process).
int run_cli(int argc, const char* const* argv);

}  // namespace cudalab
