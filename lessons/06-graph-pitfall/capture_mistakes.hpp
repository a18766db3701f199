// The capture mistakes students make, each made on purpose with the raw API so the lesson can
// show the exact cudaError_t it returns, then cleaned up (capture ended or abandoned, sticky
// last-error cleared) so the process carries on healthy.
#pragma once

#include <string>
#include <vector>

namespace cudalab::graphs {

struct CaptureMistake {
  std::string key;         // "legacy_stream"
  std::string mistake;     // what the student wrote
  std::string call;        // the call that reported it
  std::string error_name;  // cudaGetErrorName of what it returned
  std::string expected;    // the error CUDA documents for it
  std::string meaning;     // one line: why
};

std::vector<CaptureMistake> make_capture_mistakes();

}  // namespace cudalab::graphs
