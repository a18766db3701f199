// The processes a run starts to measure for it (an exercise's child, which runs the student's
// code): what they do on the GPU is the run's own work, never another tenant's, so the GPU's
// watch (gpu/nvml.cpp) counts them as this process.
#pragma once

namespace cudalab {

// Counts `pid` as this run while it lives.
class RunChild {
 public:
  explicit RunChild(long pid);
  ~RunChild();
  RunChild(const RunChild&) = delete;
  RunChild& operator=(const RunChild&) = delete;

 private:
  long pid_;
};

bool is_run_child(long pid);

}  // namespace cudalab
