// One step of a lesson's measurement: an NVTX range in the "cudalab" domain (Nsight Systems shows
// it above the GPU rows) and an entry in the phase log (common/core/phases.hpp), which the run's
// JSON keeps as queue.phases: where the turn's seconds went.
//   { const Phase phase("sweep"); sweep(...); }
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "common/core/phases.hpp"
#include "common/gpu/nvtx.hpp"

namespace cudalab {

class Phase {
 public:
  explicit Phase(std::string name)
      : name_(std::move(name)), range_(name_.c_str()), started_(std::chrono::steady_clock::now()) {}
  ~Phase() { record_phase(name_, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count()); }
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  std::string name_;
  NvtxRange range_;
  std::chrono::steady_clock::time_point started_;
};

// Runs `step` as one phase and returns what it returns:
//   m.sweep = in_phase("sweep", [&] { return sweep(...); });
template <typename Step>
decltype(auto) in_phase(std::string name, Step&& step) {
  const Phase phase(std::move(name));
  return step();
}

}  // namespace cudalab
