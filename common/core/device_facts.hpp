// What is known about a GPU and the machine around it, as plain data: the gpu layer fills these
// from CUDA and NVML, the report layer prints them, and pure code (models, reports, tests) reads
// them without a CUDA header in sight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/core/message.hpp"

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

// What one process did on the GPU in one of NVML's sample periods (about 1/6 s): NVML lists a
// process only for periods in which some of these were non-zero, so a process that holds a
// context and does nothing never appears.
struct ProcessWork {
  long pid = 0;                  // as NVML knows it (the host's pid)
  unsigned long long at_us = 0;  // the CPU time of the sample, µs since the epoch
  unsigned sm_percent = 0;       // kernels
  unsigned memory_percent = 0;   // device memory read or written (kernels and copies alike)
  unsigned codec_percent = 0;    // video encoder + decoder
};

// Another process with a context on the GPU, as seen over a window (a lesson's measurement, or a
// wait): the most NVML's per-process samples said it did in one sample period, and the CPU it
// used. What NVML shows was checked on the lab H100 with real tenants (README, "A class on a real
// server"): a kernel tenant reads SM 99% under its own pid; an idle context shows nothing; a
// tenant that only copies may show under another process's pid instead, so the CPU it burns
// waiting for its copies is the second sign.
struct Tenant {
  long pid = 0;
  unsigned sm_percent = 0, memory_percent = 0, codec_percent = 0;
  std::optional<double> cpu_share;  // CPU seconds per second of the window; nullopt when unknown
  // The rule: it worked when NVML saw it use the SMs (2% or more: 1% is a context being made),
  // device memory or a codec, or it kept a tenth of a CPU busy.
  bool worked() const;
};
inline constexpr unsigned kWorkingSmPercent = 2;
inline constexpr double kWorkingCpuShare = 0.10;

// Folds NVML's samples into `tenants` (the most per pid), adding a tenant for a pid first seen in a
// sample; `self` and the `idle` pids (idle cudalab processes) are left out.
void add_samples(std::vector<Tenant>& tenants, const std::vector<ProcessWork>& samples, long self,
                 const std::vector<long>& idle);

struct GpuActivity {
  std::optional<int> compute_processes;  // every process with a context on the GPU, this one included
  // Of those, other cudalab processes that are idle (waiting in the queue, rendering, at a
  // prompt), as their locked present files vouch (queue/gpu_presence.hpp): not a disturbance.
  std::optional<int> idle_cudalab_processes;
  // The other processes with a context, idle cudalab processes left out, and what each did in the
  // window the snapshot covers (Tenant). nullopt when NVML cannot tell, or cannot tell this process
  // from the others (its pids are not ours): then every other process counts as working.
  std::optional<std::vector<Tenant>> tenants;
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
  Message summary;      // "no other process is using the GPU"
};

struct PreflightFinding {
  std::string key;      // "launch_blocking"
  bool ok = true;
  std::string summary;  // what was found
  std::string detail;   // what it does to the lessons
};

}  // namespace cudalab
