// What the hardware promises, derived from its properties (pure): the factory drawing of its
// engines, the PCIe link's and the memory's theoretical rates. Lesson 02 measures against them.
#pragma once

#include <vector>

#include "common/report/report.hpp"
#include "measure.hpp"

namespace cudalab::device_query {

struct DevicePromise {
  std::vector<ArtPiece> factory;     // the engines, and which lesson puts each to work
  double pcie_gbps = 0;              // one direction, after line encoding; 0 when unknown
  double memory_gbps = 0;            // device memory, both directions together
};

struct Prediction {
  std::vector<DevicePromise> devices;  // in the order of Measurements::devices
};

std::vector<ArtPiece> factory_art(const DeviceInfo& d);
Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::device_query
