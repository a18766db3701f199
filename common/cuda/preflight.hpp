// Things in the environment that quietly distort the concurrency lessons. Each lesson reports
// them as warnings; device-query shows them as expect checks.
#pragma once

#include <string>
#include <vector>

#include "device.hpp"

namespace cudalab {

struct PreflightFinding {
  std::string key;      // "launch_blocking"
  bool ok = true;
  std::string summary;  // what was found
  std::string detail;   // what it does to the lessons
};

std::vector<PreflightFinding> preflight(const DeviceInfo& device);

// The not-ok findings as one-line warnings.
std::vector<std::string> preflight_warnings(const DeviceInfo& device);

}  // namespace cudalab
