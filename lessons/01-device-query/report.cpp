#include "report.hpp"

#include <fmt/format.h>

#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"

namespace cudalab::device_query {

namespace {

// Words: translated as the catalogue says.
const char* yes_no(bool b) { return b ? "yes" : "no"; }

// Data: a size with its unit, the same in every language.
Message bytes_human(std::size_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  if (gib >= 1) return verbatim(fmt::format("{:.1f} GiB", gib));
  return verbatim(fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024)));
}

// "Gen5 x16": data.
std::string link_text(int generation, int width) { return fmt::format("Gen{} x{}", generation, width); }

void system_section(ReportBuilder& b, const Measurements& m) {
  auto s = b.section("system", "system", "")
               .fact("driver", "CUDA driver", verbatim(m.driver), "what the installed driver supports", false)
               .fact("runtime", "CUDA runtime", verbatim(m.runtime), "linked statically into cudalab", false)
               .fact("device_count", "devices", verbatim(std::to_string(m.device_count)), {}, false);
  if (m.device_count < 2) return;
  std::vector<Message> columns{"can access →"};
  std::vector<std::vector<Cell>> rows;
  for (int j = 0; j < m.device_count; ++j) columns.push_back(msg("dev {index}", arg("index", j)));
  for (int i = 0; i < m.device_count; ++i) {
    std::vector<Cell> row{text_cell(msg("dev {index}", arg("index", i)))};
    for (int j = 0; j < m.device_count; ++j) {
      row.push_back(i == j ? data_cell("·") : text_cell(yes_no(m.peer_access[i][j])));
    }
    rows.push_back(std::move(row));
  }
  s.table("peer_access", columns, rows);
}

void device_section(ReportBuilder& b, const DeviceInfo& d, const DevicePromise& promise) {
  auto s = b.section(fmt::format("device{}", d.index),
                     msg("device {index} · {name}", arg("index", d.index), arg("name", d.name)),
                     d.index == 0 ? "engines" : "");
  s.art(promise.factory)
      .fact("compute_capability", "compute capability",
            verbatim(fmt::format("{}.{} (sm_{}{})", d.cc_major, d.cc_minor, d.cc_major, d.cc_minor)))
      .fact("sm_count", "multiprocessors (SMs)", verbatim(std::to_string(d.sm_count)),
            "the compute engine's width: lesson 04 fills every one")
      .fact("global_memory", "global memory", bytes_human(d.global_memory_bytes), {}, false)
      .fact("l2_cache", "L2 cache", bytes_human(static_cast<std::size_t>(d.l2_cache_bytes)), {}, false)
      .fact("memory_bus", "memory bus",
            msg("{bits}-bit at {mhz} MHz", arg("bits", d.memory_bus_width_bits), arg("mhz", d.memory_clock_khz / 1000)),
            msg("peak {gbps} GB/s on the device side", arg("gbps", fmt::format("{:.0f}", promise.memory_gbps))), false)
      .fact("copy_engines", "copy engines", verbatim(std::to_string(d.async_engine_count)),
            d.async_engine_count >= 2 ? "H2D and D2H run at once, beside kernels → lessons 02, 03"
                                      : "H2D and D2H share one engine → lesson 03 shows issue order matters")
      .fact("concurrent_kernels", "concurrent kernels", yes_no(d.concurrent_kernels),
            "kernels from different streams can share the SMs → lesson 07")
      .fact("priority_range", "stream priorities",
            verbatim(fmt::format("{} … {}", d.priority_least, d.priority_greatest)),
            msg("lower number = higher priority; {greatest} is the most urgent → lesson 04",
                arg("greatest", d.priority_greatest)))
      .fact("host_mapped", "host-mapped memory", yes_no(d.can_map_host_memory),
            "kernels can read pinned host memory directly")
      .fact("pageable_access", "pageable memory access", yes_no(d.pageable_memory_access),
            d.pageable_memory_access ? "kernels may read malloc'd memory directly (HMM or a coherent system) → lesson 02"
                                     : "kernels cannot touch malloc'd memory; copies of it are staged → lesson 02")
      .fact("unified_addressing", "unified addressing", yes_no(d.unified_addressing),
            "one address space for host and device pointers")
      .fact("pci_bus_id", "PCI bus id", verbatim(d.pci_bus_id), {}, false);
  if (d.pcie) {
    s.fact("pcie_max", "PCIe link (max)", verbatim(link_text(d.pcie->max_generation, d.pcie->max_width)),
           msg("{gbps} GB/s each way in theory → lesson 02 measures how close copies get",
               arg("gbps", fmt::format("{:.1f}", promise.pcie_gbps))))
        .fact("pcie_now", "PCIe link (now)", verbatim(link_text(d.pcie->generation, d.pcie->width)),
              "an idle link may train down to save power; it speeds up under load", false);
  } else {
    s.fact("pcie_max", "PCIe link", "unknown", "NVML (libnvidia-ml.so.1) could not be loaded", false);
  }
  s.fact("compute_mode", "compute mode",
         d.compute_mode == 0 ? Message("default") : verbatim(std::to_string(d.compute_mode)),
         d.compute_mode == 0 ? Message() : Message("not default: other processes may be locked out or in"), false);
}

// The lectures' hardware next to this GPU's: their figures were taken on other cards.
void lecture_section(ReportBuilder& b, const DeviceInfo& d) {
  b.section("lecture", "lecture vs lab: the hardware")
      .fact("lecture.sm_count", "lecture 000: compute engine", "170 SMs (RTX 5090)",
            msg("this GPU: {sms} SMs", arg("sms", d.sm_count)), false)
      .fact("lecture.copy_engines", "lecture 000: copy engines", "2-3 (H2D, D2H, D2D)",
            msg("this GPU: {count} (asyncEngineCount)", arg("count", d.async_engine_count)), false)
      .fact("lecture.l20", "lecture 002: NVIDIA L20", verbatim("asyncEngineCount = 2"),
            msg("this GPU: {value}", arg("value", d.async_engine_count)), false)
      .fact("lecture.concurrent", "lecture 002: concurrent kernels", "yes (L20)",
            msg("this GPU: {value}", arg("value", yes_no(d.concurrent_kernels))), false);
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
  // The findings' texts are fixed sentences (gpu/preflight.cpp): templates without arguments.
  for (const auto& f : m.preflight) b.expect("preflight." + f.key, f.ok, Message(f.summary), Message(f.detail));
  for (const auto& s : m.smoke) {
    const DeviceInfo* d = nullptr;
    for (const auto& info : m.devices) d = info.index == s.device ? &info : d;
    b.verify(fmt::format("smoke_kernel.device{}", s.device), s.correct, kSmokeElements,
             msg("device {device} ran a kernel built for sm_{arch}", arg("device", s.device),
                 arg("arch", fmt::format("{}{}", d->cc_major, d->cc_minor))),
             "a kernel that writes wrong values or none at all: the binary may lack code for this GPU");
  }
  const DeviceInfo& first = m.devices.front();
  lecture_section(b, first);
  if (first.pcie) {
    b.headline(msg("{device} · {engines} copy engines · priorities {least}…{greatest} · {link}",
                   arg("device", first.name), arg("engines", first.async_engine_count),
                   arg("least", first.priority_least), arg("greatest", first.priority_greatest),
                   arg("link", link_text(first.pcie->max_generation, first.pcie->max_width))));
  } else {
    b.headline(msg("{device} · {engines} copy engines · priorities {least}…{greatest}", arg("device", first.name),
                   arg("engines", first.async_engine_count), arg("least", first.priority_least),
                   arg("greatest", first.priority_greatest)));
  }
  b.try_next("cudalab 02", "how fast can the copy engines really move data?")
      .try_next("cudalab device-query --format json", "every field, machine-readable")
      .try_next("cudalab device-query --timeline", "what the GPU did, one lane per stream")
      .try_next("cudalab list", "the whole course");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::device_query
