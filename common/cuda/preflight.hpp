// Things in the environment that quietly distort the concurrency lessons. Each lesson reports
// them as warnings; the device query lesson shows them as expect checks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/cuda/device.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct PreflightFinding {
  std::string key;      // "launch_blocking"
  bool ok = true;
  std::string summary;  // what was found
  std::string detail;   // what it does to the lessons
};

std::vector<PreflightFinding> preflight(const DeviceInfo& device);

// The not-ok findings as one-line warnings.
std::vector<std::string> preflight_warnings(const DeviceInfo& device);

// The classroom preflight: what the GPU and host were doing around a lesson's measurements.
// `activity_before` and `activity_after` are NVML snapshots taken when the lesson started and
// ended (this process holds a context in both, so it is not counted as "other").
struct ClassroomSnapshot {
  GpuActivity before;
  GpuActivity after;
  std::optional<PcieLink> link_after;  // read after the lesson: an idle link trains down
  bool thread_pinned = false;          // the measuring thread was bound near the GPU
  double host_load = -1;               // 1-minute load average, -1 when unknown
  int host_cpus = 0;
};
std::vector<EnvironmentItem> classroom_items(const DeviceInfo& device, const ClassroomSnapshot& snapshot);

// Other compute processes on the GPU, from one snapshot: every process NVML lists but this one.
std::optional<int> other_processes(const GpuActivity& activity);

// The host's 1-minute load average (/proc/loadavg), -1 when it cannot be read.
double host_load_average();

}  // namespace cudalab
