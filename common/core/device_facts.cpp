#include "common/core/device_facts.hpp"

#include <algorithm>

namespace cudalab {

double pcie_lane_gbps(int generation) {
  switch (generation) {
    case 1: return 2.5 * 8 / 10 / 8;
    case 2: return 5.0 * 8 / 10 / 8;
    case 3: return 8.0 * 128 / 130 / 8;
    case 4: return 16.0 * 128 / 130 / 8;
    case 5: return 32.0 * 128 / 130 / 8;
    case 6: return 64.0 * 242 / 256 / 8;
    default: return 0;
  }
}

double PcieLink::theoretical_gbps() const { return pcie_lane_gbps(max_generation) * max_width; }

double DeviceInfo::peak_memory_bandwidth_gbps() const {
  return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0) / 1e9;
}

DeviceSummary summary_of(const DeviceInfo& info) {
  return DeviceSummary{info.index, info.name, info.cc_major, info.cc_minor, info.sm_count,
                       info.async_engine_count};
}

bool Tenant::worked() const {
  return sm_percent >= kWorkingSmPercent || memory_percent > 0 || codec_percent > 0 ||
         cpu_share.value_or(0) >= kWorkingCpuShare;
}

void add_samples(std::vector<Tenant>& tenants, const std::vector<ProcessWork>& samples, long self,
                 const std::vector<long>& idle) {
  for (const auto& w : samples) {
    if (w.pid == self || std::find(idle.begin(), idle.end(), w.pid) != idle.end()) continue;
    auto it = std::find_if(tenants.begin(), tenants.end(), [&](const Tenant& t) { return t.pid == w.pid; });
    if (it == tenants.end()) it = tenants.insert(tenants.end(), Tenant{w.pid, 0, 0, 0, std::nullopt});
    it->sm_percent = std::max(it->sm_percent, w.sm_percent);
    it->memory_percent = std::max(it->memory_percent, w.memory_percent);
    it->codec_percent = std::max(it->codec_percent, w.codec_percent);
  }
}

}  // namespace cudalab
