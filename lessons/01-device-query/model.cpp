#include "model.hpp"

#include <fmt/format.h>

namespace cudalab::device_query {

namespace {

std::vector<std::vector<Message>> engine_rows(const DeviceInfo& d) {
  // CUDA documents how many copy engines there are, not which copy each one serves, so the
  // drawing shows their count and what that count allows, not a job per engine.
  const Message sms = msg("{sms} SMs run the kernels", arg("sms", d.sm_count));
  if (d.async_engine_count >= 2) {
    return {{msg("copy engines x{count}", arg("count", d.async_engine_count)), "upload and download at once",
             "lessons 02, 03"},
            {"compute engine", sms, "lessons 03, 04, 07"}};
  }
  if (d.async_engine_count == 1) {
    return {{"copy engine", "one dock for both directions", "lessons 02, 03"},
            {"compute engine", sms, "lessons 03, 04, 07"}};
  }
  return {{"no copy engine", "copies and kernels take turns"}, {"compute engine", sms}};
}

Message what_runs_at_once(const DeviceInfo& d) {
  if (d.async_engine_count >= 2) return "an upload, a download and kernels can be busy at the same moment";
  if (d.async_engine_count == 1) return "uploads and downloads take turns; either can overlap kernels";
  return "copies and kernels take turns";
}

}  // namespace

std::vector<ArtPiece> factory_art(const DeviceInfo& d) {
  const std::string link =
      d.pcie ? fmt::format("PCIe Gen{} x{}", d.pcie->max_generation, d.pcie->max_width) : std::string("PCIe");
  return {ArtPiece{false, msg("host memory ══ {link} ══▶ {device}", arg("link", link), arg("device", d.name)), {}},
          ArtPiece{true, {}, engine_rows(d)}, ArtPiece{false, what_runs_at_once(d), {}}};
}

Prediction predict(const Params&, const Measurements& m) {
  Prediction out;
  for (const auto& d : m.devices) {
    out.devices.push_back({factory_art(d), d.pcie ? d.pcie->theoretical_gbps() : 0.0, d.peak_memory_bandwidth_gbps()});
  }
  return out;
}

}  // namespace cudalab::device_query
