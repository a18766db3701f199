// What NVML (the driver's management library, loaded with dlopen so the binary never needs it
// to start) says about a GPU beyond what CUDA reports: the PCIe link as trained now, who else
// uses the GPU, its clocks and why they are held down. Every field is optional: NVML may be
// missing, or refuse a query (containers, MIG, no permission).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cudalab {

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
  std::optional<unsigned> sm_clock_mhz, sm_clock_max_mhz;
  std::optional<unsigned> memory_clock_mhz, memory_clock_max_mhz;
  std::optional<std::uint64_t> clock_event_reasons;  // NVML bit mask
  std::optional<bool> mig_enabled;
};

std::optional<PcieLink> query_pcie_link(const std::string& pci_bus_id);
GpuActivity query_gpu_activity(const std::string& pci_bus_id);

// Binds the calling thread to the CPUs nearest the GPU (its NUMA node), as nvbandwidth does, so
// host-side timings do not depend on which socket the scheduler picked. False when NVML cannot.
bool pin_thread_near_gpu(const std::string& pci_bus_id);

}  // namespace cudalab
