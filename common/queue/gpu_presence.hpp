// Idle cudalab processes are not a disturbance. A cudalab process that holds a CUDA context
// shows in NVML's process list for as long as it lives: while it renders its output, while `all`
// is between lessons and waits in the queue for the next, while live mode sits at its prompt.
// None of that touches the GPU, and another student's run must not be marked disturbed by it
// (nor wait for it with --wait-idle).
//
// So every cudalab process on a GPU keeps a "present" file, present-<pid>, in the GPU's queue
// folder (gpu_queue.hpp), flock'ed whenever it is not measuring, and withdrawn while it measures.
// A watcher counts an NVML process as an idle cudalab process only when the kernel vouches for
// all of it: present-<pid> is a regular file (not a symlink), someone holds a flock on it, and
// its owner uid is the uid that owns /proc/<pid>. Its contents are never read. A user can only
// vouch for processes of their own uid; a dead process's file is unlocked and counts for nothing,
// even when its pid is reused. Where the pids do not match (NVML reports host pids inside a
// container's pid namespace), nothing is counted idle and every process counts, as without this.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

// This process is on the GPU: it holds a CUDA context there, or is about to. From now on, while
// no MeasuringScope lives, it keeps present-<pid> locked in the GPU's queue folder. Idempotent.
// Best effort: when the folder cannot be used, others simply count this process as working.
// `folder` "" means the queue folder (queue_files::queue_root_path()).
void announce_gpu_presence(const std::string& gpu_uuid, const std::string& folder = "");

// While one lives, this process measures: its present files are withdrawn, so watchers count it
// as working. Nestable. Destroy it before giving the turn back (declare it after the GpuTurn), so
// that the next student's watch never sees this process as working after its turn.
class MeasuringScope {
 public:
  MeasuringScope();
  ~MeasuringScope();
  MeasuringScope(const MeasuringScope&) = delete;
  MeasuringScope& operator=(const MeasuringScope&) = delete;
};

// How many of `pids` (NVML's compute processes on the GPU) are idle cudalab processes, this
// process left out. 0 when the GPU's queue folder does not exist or cannot be opened.
int count_idle_cudalab(const std::string& gpu_uuid, const std::vector<long>& pids, const std::string& folder = "");

}  // namespace cudalab
