// The capture mistakes students make, each made on purpose with the raw API so the lesson can
// show the exact cudaError_t it returns, then cleaned up (capture ended or abandoned, sticky
// last-error cleared) so the process carries on healthy.
#pragma once

#include <string>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab::graphs {

struct CaptureMistake {
  std::string key;                  // "legacy_stream"
  Message mistake;                  // what the student wrote
  Message call;                     // the call(s) that reported it
  std::vector<std::string> errors;  // cudaGetErrorName of what each of those calls returned
  std::vector<std::string> expected;  // the errors CUDA documents for them
  Message meaning;                  // one line: why
};

std::vector<CaptureMistake> make_capture_mistakes();

}  // namespace cudalab::graphs
