// What the bench knows about a GPU: properties lessons depend on, read through the runtime
// (cudaDeviceGetAttribute for fields CUDA 13 removed from cudaDeviceProp) and, where the
// driver's NVML library can be loaded at run time, the PCIe link.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/cuda/nvml.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// GB/s per lane after line encoding: Gen1/2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT (242/256).
double pcie_lane_gbps(int generation);

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

// Number of CUDA devices; throws WaivedError("no CUDA device found: ...") when there are none
// or the driver is missing or too old.
int device_count();

// Checks `index` against the device count (WaivedError when out of range), makes it current.
void use_device(int index);

DeviceInfo query_device(int index);
DeviceSummary summary_of(const DeviceInfo& info);

// Driver and runtime versions as "13.0".
std::string driver_version();
std::string runtime_version();

// Peer access matrix: can_access[i][j] is true when device i can map device j's memory.
std::vector<std::vector<bool>> peer_access_matrix(int count);

// Refuses, before a lesson allocates anything, a request the current device cannot hold:
// UsageError "<request> needs X GiB of device memory (<what>) but device N has only Y GiB free
// of Z GiB". `request` names the flag and value, e.g. "--size 900GiB".
void require_device_memory(const std::string& request, std::uint64_t needed_bytes, const std::string& what);


}  // namespace cudalab
