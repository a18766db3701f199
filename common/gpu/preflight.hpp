// Things in the environment that quietly distort the concurrency lessons. Each lesson reports
// them as warnings; the device query lesson shows them as expect checks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/gpu/device.hpp"
#include "common/gpu/nvml.hpp"
#include "common/core/device_facts.hpp"

namespace cudalab {

std::vector<PreflightFinding> preflight(const DeviceInfo& device);

// The not-ok findings as one-line warnings ("summary: detail").
std::vector<Message> preflight_warnings(const DeviceInfo& device);

// The classroom preflight: what the GPU and host were doing around a lesson's measurements.
// `activity_before` and `activity_after` are NVML snapshots taken when the lesson started and
// ended (this process holds a context in both, so it is not counted as "other").
struct ClassroomSnapshot {
  GpuActivity before;
  GpuActivity after;
  // The busiest moment while the lesson measured, as a GpuProcessWatch sampled it: another
  // student's run can start and end between before and after.
  GpuActivity busiest_during;
  std::optional<PcieLink> link_after;  // read after the lesson: an idle link trains down
  bool turn_shared = false;            // another run held this GPU's turn beside ours (gpu_queue.hpp)
  bool thread_pinned = false;          // the measuring thread was bound near the GPU
  double host_load = -1;               // 1-minute load average, -1 when unknown
  int host_cpus = 0;
};
std::vector<EnvironmentItem> classroom_items(const DeviceInfo& device, const ClassroomSnapshot& snapshot);

// Other compute processes on the GPU, from one snapshot: every process NVML lists but this one
// and the idle cudalab processes (GpuActivity::idle_cudalab_processes). This is what --wait-idle
// waits for: never a cudalab process that is itself waiting in the queue.
std::optional<int> other_processes(const GpuActivity& activity);

// The other processes that worked on the GPU, not merely held a context (Tenant::worked) where
// NVML can tell, else every other process (other_processes). This is what --wait-idle waits for.
std::optional<int> working_others(const GpuActivity& activity);

// Counts the processes on a GPU every kSamplePeriod while it lives, on a thread of its own, and
// keeps the snapshot with the most other processes (other_processes; compute_processes unset
// without NVML); its tenants are every other process seen while the watch lived, with what each
// did (NVML keeps per-process samples, read since the watch began; CPU time from /proc).
class GpuProcessWatch {
 public:
  static constexpr std::chrono::milliseconds kSamplePeriod{100};
  explicit GpuProcessWatch(std::string pci_bus_id);
  ~GpuProcessWatch();
  GpuProcessWatch(const GpuProcessWatch&) = delete;
  GpuProcessWatch& operator=(const GpuProcessWatch&) = delete;
  GpuActivity busiest() const;

 private:
  void sample();
  std::string pci_bus_id_;
  mutable std::mutex mutex_;
  std::condition_variable stop_requested_;
  bool stopping_ = false;
  GpuActivity busiest_;
  TenantLedger ledger_;  // what every other process did while the watch lived
  std::thread thread_;
};

// The host's 1-minute load average (/proc/loadavg), -1 when it cannot be read.
double host_load_average();

}  // namespace cudalab
