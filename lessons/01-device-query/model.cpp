#include "model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab::device_query {

namespace {

std::vector<std::string> engine_rows(const DeviceInfo& d) {
  // CUDA documents how many copy engines there are, not which copy each one serves, so the
  // drawing shows their count and what that count allows, not a job per engine.
  std::vector<std::string> rows;
  if (d.async_engine_count >= 2) {
    rows.push_back(fmt::format("copy engines x{}   upload and download at once        lessons 02, 03",
                               d.async_engine_count));
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels          lessons 03, 04, 07", d.sm_count));
  } else if (d.async_engine_count == 1) {
    rows.push_back("copy engine       one dock for both directions       lessons 02, 03");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels          lessons 03, 04, 07", d.sm_count));
  } else {
    rows.push_back("no copy engine    copies and kernels take turns");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels", d.sm_count));
  }
  return rows;
}

}  // namespace

std::vector<std::string> factory_art(const DeviceInfo& d) {
  const auto rows = engine_rows(d);
  std::size_t inner = 0;
  for (const auto& r : rows) inner = std::max(inner, display_width(r));
  const std::string link =
      d.pcie ? fmt::format("PCIe Gen{} x{}", d.pcie->max_generation, d.pcie->max_width) : std::string("PCIe");
  std::vector<std::string> art;
  art.push_back(fmt::format("host memory ══ {} ══▶ {}", link, d.name));
  art.push_back("┌" + repeat_text("─", inner + 2) + "┐");
  for (const auto& r : rows) art.push_back("│ " + pad_right(r, inner) + " │");
  art.push_back("└" + repeat_text("─", inner + 2) + "┘");
  art.push_back(d.async_engine_count >= 2   ? "an upload, a download and kernels can be busy at the same moment"
                : d.async_engine_count == 1 ? "uploads and downloads take turns; either can overlap kernels"
                                            : "copies and kernels take turns");
  return art;
}

Prediction predict(const Params&, const Measurements& m) {
  Prediction out;
  for (const auto& d : m.devices) {
    out.devices.push_back({factory_art(d), d.pcie ? d.pcie->theoretical_gbps() : 0.0, d.peak_memory_bandwidth_gbps()});
  }
  return out;
}

}  // namespace cudalab::device_query
