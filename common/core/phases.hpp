// Where a turn's seconds go. A lesson marks its top-level steps as phases (common/gpu/phase.hpp:
// an NVTX range for Nsight Systems and a wall-clock entry here); the session moves the entries
// into the run's JSON (queue.phases), so an instructor, or whoever shortens a lesson's turn,
// reads which step holds the GPU longest without a profiler.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

struct PhaseTime {
  std::string name;  // "sweep", "lecture replica"
  double seconds = 0;
};

// Appends one phase to this process's log (thread-safe).
void record_phase(std::string name, double seconds);
// The phases recorded since the last call, in the order they ended; the log is then empty.
std::vector<PhaseTime> take_phases();

}  // namespace cudalab
