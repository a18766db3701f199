// Lesson 01's "measurement": what the driver, the runtime and NVML report about each GPU, and one
// small verified kernel per GPU that proves the binary carries code for it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/core/device_facts.hpp"
#include "params.hpp"

namespace cudalab::device_query {

inline constexpr std::size_t kSmokeElements = 1 << 20;

struct SmokeRun {
  int device = 0;
  std::size_t correct = 0;  // of kSmokeElements
};

struct Measurements {
  bool device_given = false;  // --device N: only that device
  std::string driver, runtime;
  int device_count = 0;
  std::vector<std::vector<bool>> peer_access;  // only with two or more devices
  std::vector<DeviceInfo> devices;             // the ones shown
  std::vector<PreflightFinding> preflight;     // for the first device shown
  std::vector<SmokeRun> smoke;
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::device_query
