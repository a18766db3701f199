// The CUDA toolkit on the student's machine, and compiling a student's file with it. The file is
// built into a shared library that the bench loads in a child process (child_process.hpp): nvcc
// links the library's own static CUDA runtime into it, beside the bench's, and both drive the one
// context of the child (checked on the lab H200: streams, events, buffers and graphs pass between
// them; DESIGN.md, "One CUDA runtime per process"). Compiling happens before the GPU turn is asked
// for, so a turn holds the GPU only while something measures.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// Where nvcc was found, and how: CUDALAB_NVCC, then nvcc on PATH, then $CUDA_HOME/bin/nvcc,
// then /usr/local/cuda/bin/nvcc. nullopt when none is there.
struct Toolchain {
  std::string nvcc;
  Message found_by;  // "CUDALAB_NVCC", "PATH", ...
};
std::optional<Toolchain> find_toolchain();

struct CompileRequest {
  std::string source;         // the student's file
  std::string include_dir;    // where the exercise's interface header was written
  std::string output;         // the shared library to make
  std::string architecture;   // "sm_90"; "" for nvcc's default (no GPU to ask)
  double time_limit_s = 60;
};

struct CompileResult {
  bool ok = false;
  bool timed_out = false;
  double seconds = 0;
  std::vector<std::string> command;   // as run, for the run's record
  std::string output;                 // what nvcc printed (bounded)
  // The diagnostics about the student's own file, each "FILE:LINE: error: ...": nvcc's device-side
  // "FILE(LINE): error" and the host compiler's "FILE:LINE:COL: error" read the same way.
  std::vector<std::string> diagnostics;
};

CompileResult compile_student_file(const Toolchain& toolchain, const CompileRequest& request);

// The diagnostics in `output` that name `file` (compiler output is untrusted text too: read line
// by line, bounded, no regular expressions), normalised to "FILE:LINE: rest".
std::vector<std::string> diagnostics_about(const std::string& output, const std::string& file);

}  // namespace cudalab
