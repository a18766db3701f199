// What is known about a GPU and the machine around it, as plain data: the gpu layer fills these
// from CUDA and NVML, the report layer prints them, and pure code (models, reports, tests) reads
// them without a CUDA header in sight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cudalab {

// GB/s per lane after line encoding: Gen1/2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT (242/256).
double pcie_lane_gbps(int generation);

struct PcieLink {
  int generation = 0;      // current (may be lower at idle: links downshift to save power)
  int width = 0;
  int max_generation = 0;  // what the link can do, device and slot together
  int max_width = 0;
  // Theoretical one-direction payload rate at the max generation and width, GB/s (1e9 B/s).
  double theoretical_gbps() const;
};

// NVML's "clocks event reasons" bits that mean the GPU is slowed by heat or power, not by
// being idle or by a setting.
inline constexpr std::uint64_t kSlowdownReasons = 0x8 /*HW slowdown*/ | 0x20 /*SW thermal*/ |
                                                  0x40 /*HW thermal*/ | 0x80 /*HW power brake*/;

struct GpuActivity {
  std::optional<int> compute_processes;  // every process with a context on the GPU, this one included
  // Of those, other cudalab processes that are idle (waiting in the queue, rendering, at a
  // prompt), as their locked present files vouch (queue/gpu_presence.hpp): not a disturbance.
  std::optional<int> idle_cudalab_processes;
  std::optional<unsigned> sm_clock_mhz, sm_clock_max_mhz;
  std::optional<unsigned> memory_clock_mhz, memory_clock_max_mhz;
  std::optional<std::uint64_t> clock_event_reasons;  // NVML bit mask
  std::optional<bool> mig_enabled;
};

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t global_memory_bytes = 0;
  int l2_cache_bytes = 0;
  int memory_bus_width_bits = 0;
  int memory_clock_khz = 0;        // attribute: removed from cudaDeviceProp in CUDA 13
  int async_engine_count = 0;      // copy engines that run beside the compute engine
  bool concurrent_kernels = false;
  int priority_least = 0;          // numerically largest = lowest priority (usually 0)
  int priority_greatest = 0;       // numerically smallest = highest priority (e.g. -5)
  bool can_map_host_memory = false;
  bool pageable_memory_access = false;
  bool unified_addressing = false;
  bool kernel_exec_timeout = false;  // a display watchdog kills long kernels
  int compute_mode = 0;
  std::string pci_bus_id;
  std::optional<PcieLink> pcie;    // absent when NVML could not be loaded
  double peak_memory_bandwidth_gbps() const;  // 2 transfers per clock (DDR) x bus width
};

struct DeviceSummary {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int copy_engines = 0;  // asyncEngineCount
};

DeviceSummary summary_of(const DeviceInfo& info);

// One line of the classroom preflight: what the environment was while the lesson measured.
struct EnvironmentItem {
  std::string key;      // "other_processes"
  bool ok = true;
  std::string summary;  // "no other process is using the GPU"
};

struct PreflightFinding {
  std::string key;      // "launch_blocking"
  bool ok = true;
  std::string summary;  // what was found
  std::string detail;   // what it does to the lessons
};

}  // namespace cudalab
