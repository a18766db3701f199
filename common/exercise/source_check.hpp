// A student's exercise file, read as untrusted input before anything compiles it: bounded in
// size, a regular file opened without blocking (core/files.hpp), and its interface line found by
// a plain scan. A file written for another version of the exercise's interface is refused by
// name and version here, with what to do, rather than as a wall of compiler errors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/core/message.hpp"

namespace cudalab {

struct ExerciseDescription;

// Larger than any exercise needs by far; a bigger file is refused, never read whole.
inline constexpr std::size_t kMaxExerciseSource = 512u << 10;

struct InterfaceLine {
  std::string name;  // "stream_overlap_pipeline"
  int version = 0;   // 1
};

// The first `#include <cudalab/NAME_vN.h>` (or with quotes) of `source`; nullopt when none.
std::optional<InterfaceLine> interface_of(const std::string& source);

// Empty when `source` speaks `exercise`'s interface; else why not, in one printable line naming
// the interface and both versions.
Message interface_problem(const std::string& source, const ExerciseDescription& exercise,
                          const std::string& file_name);

}  // namespace cudalab
