#include "model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab::device_query {

namespace {

std::vector<std::string> engine_rows(const DeviceInfo& d) {
  std::vector<std::string> rows;
  if (d.async_engine_count >= 2) {
    rows.push_back("H2D copy engine   unloads inputs from the host       lessons 02, 03");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels          lessons 03, 04, 07", d.sm_count));
    rows.push_back("D2H copy engine   ships results back to the host     lessons 02, 03");
    if (d.async_engine_count > 2) {
      rows.push_back(fmt::format("+{} more copy engine{}  (device-to-device, peer copies)", d.async_engine_count - 2,
                                 d.async_engine_count - 2 == 1 ? "" : "s"));
    }
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
  art.push_back(d.async_engine_count >= 2 ? "each engine has its own queue: all three can be busy at the same moment"
                                          : "engines that share a queue take turns");
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
