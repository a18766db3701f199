// What NVML (the driver's management library, loaded with dlopen so the binary never needs it
// to start) says about a GPU beyond what CUDA reports: the PCIe link as trained now, who else
// uses the GPU, its clocks and why they are held down. Every field is optional: NVML may be
// missing, or refuse a query (containers, MIG, no permission).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/core/device_facts.hpp"

namespace cudalab {

std::optional<PcieLink> query_pcie_link(const std::string& pci_bus_id);
GpuActivity query_gpu_activity(const std::string& pci_bus_id);

// Binds the calling thread to the CPUs nearest the GPU (its NUMA node), as nvbandwidth does, so
// host-side timings do not depend on which socket the scheduler picked. False when NVML cannot.
bool pin_thread_near_gpu(const std::string& pci_bus_id);

}  // namespace cudalab
