#include "report.hpp"

#include <fmt/format.h>

#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"

namespace cudalab::device_query {

namespace {

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string bytes_human(std::size_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  if (gib >= 1) return fmt::format("{:.1f} GiB", gib);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024));
}

void system_section(ReportBuilder& b, const Measurements& m) {
  auto s = b.section("system", "system", "")
               .fact("driver", "CUDA driver", m.driver, "what the installed driver supports", false)
               .fact("runtime", "CUDA runtime", m.runtime, "linked statically into cudalab", false)
               .fact("device_count", "devices", std::to_string(m.device_count), "", false);
  if (m.device_count < 2) return;
  std::vector<std::string> columns{"can access →"};
  std::vector<std::vector<Cell>> rows;
  for (int j = 0; j < m.device_count; ++j) columns.push_back(fmt::format("dev {}", j));
  for (int i = 0; i < m.device_count; ++i) {
    std::vector<Cell> row{text_cell(fmt::format("dev {}", i))};
    for (int j = 0; j < m.device_count; ++j) row.push_back(text_cell(i == j ? "·" : yes_no(m.peer_access[i][j])));
    rows.push_back(std::move(row));
  }
  s.table("peer_access", columns, rows);
}

void device_section(ReportBuilder& b, const DeviceInfo& d, const DevicePromise& promise) {
  auto s = b.section(fmt::format("device{}", d.index), fmt::format("device {} · {}", d.index, d.name),
                     d.index == 0 ? "engines" : "");
  s.art(promise.factory)
      .fact("compute_capability", "compute capability",
            fmt::format("{}.{} (sm_{}{})", d.cc_major, d.cc_minor, d.cc_major, d.cc_minor))
      .fact("sm_count", "multiprocessors (SMs)", std::to_string(d.sm_count),
            "the compute engine's width: lesson 04 fills every one")
      .fact("global_memory", "global memory", bytes_human(d.global_memory_bytes), "", false)
      .fact("l2_cache", "L2 cache", bytes_human(static_cast<std::size_t>(d.l2_cache_bytes)), "", false)
      .fact("memory_bus", "memory bus", fmt::format("{}-bit at {} MHz", d.memory_bus_width_bits, d.memory_clock_khz / 1000),
            fmt::format("peak {:.0f} GB/s on the device side", promise.memory_gbps), false)
      .fact("copy_engines", "copy engines", std::to_string(d.async_engine_count),
            d.async_engine_count >= 2 ? "H2D and D2H run at once, beside kernels → lessons 02, 03"
                                      : "H2D and D2H share one engine → lesson 03 shows issue order matters")
      .fact("concurrent_kernels", "concurrent kernels", yes_no(d.concurrent_kernels),
            "kernels from different streams can share the SMs → lesson 07")
      .fact("priority_range", "stream priorities", fmt::format("{} … {}", d.priority_least, d.priority_greatest),
            fmt::format("lower number = higher priority; {} is the most urgent → lesson 04", d.priority_greatest))
      .fact("host_mapped", "host-mapped memory", yes_no(d.can_map_host_memory),
            "kernels can read pinned host memory directly")
      .fact("pageable_access", "pageable memory access", yes_no(d.pageable_memory_access),
            d.pageable_memory_access ? "kernels may read malloc'd memory directly (HMM or a coherent system) → lesson 02"
                                     : "kernels cannot touch malloc'd memory; copies of it are staged → lesson 02")
      .fact("unified_addressing", "unified addressing", yes_no(d.unified_addressing),
            "one address space for host and device pointers")
      .fact("pci_bus_id", "PCI bus id", d.pci_bus_id, "", false);
  if (d.pcie) {
    s.fact("pcie_max", "PCIe link (max)", fmt::format("Gen{} x{}", d.pcie->max_generation, d.pcie->max_width),
           fmt::format("{:.1f} GB/s each way in theory → lesson 02 measures how close copies get", promise.pcie_gbps))
        .fact("pcie_now", "PCIe link (now)", fmt::format("Gen{} x{}", d.pcie->generation, d.pcie->width),
              "an idle link may train down to save power; it speeds up under load", false);
  } else {
    s.fact("pcie_max", "PCIe link", "unknown", "NVML (libnvidia-ml.so.1) could not be loaded", false);
  }
  s.fact("compute_mode", "compute mode", d.compute_mode == 0 ? "default" : std::to_string(d.compute_mode),
         d.compute_mode == 0 ? "" : "not default: other processes may be locked out or in", false);
}

// The lectures' hardware next to this GPU's: their figures were taken on other cards.
void lecture_section(ReportBuilder& b, const DeviceInfo& d) {
  b.section("lecture", "lecture vs lab: the hardware")
      .fact("lecture.sm_count", "lecture 000: compute engine", "170 SMs (RTX 5090)",
            fmt::format("this GPU: {} SMs", d.sm_count), false)
      .fact("lecture.copy_engines", "lecture 000: copy engines", "2-3 (H2D, D2H, D2D)",
            fmt::format("this GPU: {} (asyncEngineCount)", d.async_engine_count), false)
      .fact("lecture.l20", "lecture 002: NVIDIA L20", "asyncEngineCount = 2",
            fmt::format("this GPU: {}", d.async_engine_count), false)
      .fact("lecture.concurrent", "lecture 002: concurrent kernels", "yes (L20)",
            fmt::format("this GPU: {}", yes_no(d.concurrent_kernels)), false);
}

}  // namespace

Report build_report(const Params&, const Measurements& m, const Prediction& promise) {
  ReportBuilder b({Param{"device", m.device_given ? std::to_string(m.devices.front().index) : "all", true}});
  system_section(b, m);
  std::vector<DeviceSummary> shown;
  for (std::size_t i = 0; i < m.devices.size(); ++i) {
    device_section(b, m.devices[i], promise.devices[i]);
    shown.push_back(summary_of(m.devices[i]));
  }
  b.devices(shown);  // every device this run shows, not only the one it ran on
  b.section("preflight", "preflight: will the next lessons behave?");
  for (const auto& f : m.preflight) b.expect("preflight." + f.key, f.ok, f.summary, f.detail);
  for (const auto& s : m.smoke) {
    const DeviceInfo* d = nullptr;
    for (const auto& info : m.devices) d = info.index == s.device ? &info : d;
    b.verify(fmt::format("smoke_kernel.device{}", s.device), s.correct, kSmokeElements,
             fmt::format("device {} ran a kernel built for sm_{}{}", s.device, d->cc_major, d->cc_minor),
             "a kernel that writes wrong values or none at all: the binary may lack code for this GPU");
  }
  const DeviceInfo& first = m.devices.front();
  lecture_section(b, first);
  b.headline(fmt::format("{} · {} copy engines · priorities {}…{}{}", first.name, first.async_engine_count,
                         first.priority_least, first.priority_greatest,
                         first.pcie ? fmt::format(" · Gen{} x{}", first.pcie->max_generation, first.pcie->max_width) : ""));
  b.try_next("cudalab 02", "how fast can the copy engines really move data?")
      .try_next("cudalab device-query --format json", "every field, machine-readable")
      .try_next("cudalab device-query --timeline", "what the GPU did, one lane per stream")
      .try_next("cudalab list", "the whole course");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::device_query
