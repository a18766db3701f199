#include "preflight.hpp"

#include <cstdlib>
#include <string_view>

namespace cudalab {

namespace {
bool env_set(const char* name, std::string_view value = {}) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return false;
  return value.empty() || std::string_view(v) == value;
}
}  // namespace

std::vector<PreflightFinding> preflight(const DeviceInfo& d) {
  std::vector<PreflightFinding> f;
  const bool blocking = env_set("CUDA_LAUNCH_BLOCKING", "1");
  f.push_back({"launch_blocking", !blocking,
               blocking ? "CUDA_LAUNCH_BLOCKING=1 is set" : "CUDA_LAUNCH_BLOCKING is not set",
               "every launch and copy waits for the previous one: no overlap at all in lessons 03-07"});
  const bool two_copy = d.async_engine_count >= 2;
  f.push_back({"copy_engines", two_copy,
               two_copy ? "H2D and D2H have copy engines of their own"
                        : "fewer than two copy engines: H2D and D2H cannot overlap each other",
               "lessons 02/03 predict less overlap; issue order starts to matter (lesson 03)"});
  const bool mig = d.name.find("MIG") != std::string::npos ||
                   (env_set("CUDA_VISIBLE_DEVICES") &&
                    std::string_view(std::getenv("CUDA_VISIBLE_DEVICES")).substr(0, 4) == "MIG-");
  const bool mps = env_set("CUDA_MPS_PIPE_DIRECTORY") || env_set("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  f.push_back({"shared_gpu", !mig && !mps,
               mig ? "running on a MIG slice" : mps ? "an MPS environment is configured" : "whole GPU, no MPS/MIG",
               "a shared or partitioned GPU has fewer SMs and engines than the lessons assume"});
  f.push_back({"watchdog", !d.kernel_exec_timeout,
               d.kernel_exec_timeout ? "a display watchdog limits kernel run time" : "no display watchdog",
               "long background kernels (lesson 04) may be killed; use shorter runs"});
  return f;
}

std::vector<std::string> preflight_warnings(const DeviceInfo& d) {
  std::vector<std::string> out;
  for (const auto& finding : preflight(d)) {
    if (!finding.ok) out.push_back(finding.summary + ": " + finding.detail);
  }
  return out;
}

}  // namespace cudalab
