// What NVML (the driver's management library, loaded with dlopen so the binary never needs it
// to start) says about a GPU beyond what CUDA reports: the PCIe link as trained now, who else
// uses the GPU, its clocks and why they are held down. Every field is optional: NVML may be
// missing, or refuse a query (containers, MIG, no permission).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <map>
#include <vector>

#include "common/core/device_facts.hpp"

namespace cudalab {

std::optional<PcieLink> query_pcie_link(const std::string& pci_bus_id);

// The samples taken after `since_us`. nullopt when this driver or GPU cannot say (the call is
// missing or refused): then idle and working processes cannot be told apart.
std::optional<std::vector<ProcessWork>> query_process_work(const std::string& pci_bus_id,
                                                           unsigned long long since_us);
// The UUIDs of this host's GPUs that share a PCIe path with the GPU at `pci_bus_id` (the same
// switch or host bridge, as NVML's topology tells it: PHB or closer), that GPU's own included.
// Every GPU of the host is seen, whatever CUDA_VISIBLE_DEVICES hides. Empty without NVML.
std::vector<std::string> gpus_sharing_host_path(const std::string& pci_bus_id);

// The pids NVML lists with a compute context on the GPU; nullopt without NVML.
std::optional<std::vector<long>> query_compute_pids(const std::string& pci_bus_id);
// The GPU's processes, clocks and MIG mode now; its tenants are what the other processes did in
// the last `lookback_s` seconds (NVML's samples only: one look tells no CPU share).
GpuActivity query_gpu_activity(const std::string& pci_bus_id, double lookback_s = 1.0);

// What the other processes on a GPU did since the ledger began (Tenant: NVML's per-process samples
// and each one's CPU time), this process and idle cudalab processes left out. The classroom watch
// and --wait-idle keep one each.
class TenantLedger {
 public:
  explicit TenantLedger(std::string pci_bus_id, unsigned long long since_us = 0);
  void update();  // one look: NVML's processes and samples, and each one's CPU time
  // nullopt when NVML cannot tell (see GpuActivity::tenants).
  std::optional<std::vector<Tenant>> tenants() const;

 private:
  struct CpuReadings {
    double first_s = 0, first_at = 0, last_s = 0, last_at = 0;
  };
  std::string pci_bus_id_;
  unsigned long long since_us_;
  bool unknown_ = false;
  std::vector<Tenant> tenants_;
  std::map<long, CpuReadings> cpu_;
};

// Whether process `pid` (a pid of this process's namespace) has a CUDA context on the GPU named
// `gpu_uuid`; nullopt when NVML cannot say, or its pids are not ours.
std::optional<bool> has_cuda_context(const std::string& gpu_uuid, long pid);

// Microseconds since the epoch, NVML's sample clock.
unsigned long long epoch_us();

// Binds the calling thread to the CPUs nearest the GPU (its NUMA node), as nvbandwidth does, so
// host-side timings do not depend on which socket the scheduler picked. False when NVML cannot.
bool pin_thread_near_gpu(const std::string& pci_bus_id);

}  // namespace cudalab
