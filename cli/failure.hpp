// Every way a command can fail, mapped once to the line the user reads and the exit code. The
// whole command line (run_cli), each lesson of `cudalab all` and live mode's prompt all read this
// one mapping, so an error reads the same wherever it strikes: a --queue-timeout is never called
// a CUDA error, a waived lesson never an error.
#pragma once

#include <exception>
#include <string>

#include "common/core/lang.hpp"
#include "common/core/message.hpp"

namespace cudalab {

struct Failure {
  int exit_code = 0;
  // The template around the message, without the "cudalab: " in front: "error: {message}",
  // "waived: {message}", "CUDA error: {message}". Translated; the message fills {message}.
  const char* frame = "{message}";
  Message message;           // the error's own words
  bool internal = false;     // not an error cudalab throws on purpose: a bug, which ends the command
  bool interrupted = false;  // Ctrl-C or SIGTERM: exit_code is 130 or 143
};

// What `error` is, as a failure (every exception a command can end with: CLI11's parse errors,
// cudalab's own kinds, anything else as an internal error).
Failure failure_of(const std::exception_ptr& error);

// A usage error found without an exception (a bad value at live mode's prompt): exit code 2.
Failure usage_failure(Message message);

// The one printable line (without its line break) that says so, in `lang`:
// "cudalab: error: …", or with `where` "cudalab: lesson 03 stream-overlap: waived: …".
std::string failure_line(const Failure& failure, Lang lang, const std::string& where = {});

}  // namespace cudalab
