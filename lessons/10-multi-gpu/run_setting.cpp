#include "run_setting.hpp"

#include <unistd.h>

#include <cstdlib>

#include "common/core/errors.hpp"
#include "common/gpu/device.hpp"

namespace cudalab::multi_gpu {

namespace {

// The variables NCCL's documentation lists for choosing a transport between GPUs.
constexpr const char* kTransportVariables[] = {"NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_SHM_DISABLE",
                                               "NCCL_IB_DISABLE",  "NCCL_NET",       "NCCL_SOCKET_IFNAME"};
constexpr std::size_t kMaxValueChars = 64;

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

GpuFacts query_gpu(int device) {
  const DeviceInfo info = query_device(device);
  return GpuFacts{summary_of(info), info.priority_least, info.priority_greatest};
}

NcclSettings nccl_transport_settings() {
  NcclSettings set;
  for (const char* name : kTransportVariables) {
    const char* value = std::getenv(name);
    if (value != nullptr) set.emplace_back(name, std::string(value).substr(0, kMaxValueChars));
  }
  return set;
}

void require_transport(const Params& p) {
  if (p.transport != "socket") return;
  for (const auto& [name, value] : socket_transport_environment()) {
    const char* set = std::getenv(name.c_str());
    if (set == nullptr || value != set) {
      throw UsageError(msg("--transport socket: {variable}={value} must be in the environment before NCCL starts; "
                           "`cudalab 10 --ranks 2 --transport socket` sets it for its ranks, a launcher's ranks need "
                           "it set by hand",
                           arg("variable", name), arg("value", value)));
    }
  }
}

}  // namespace cudalab::multi_gpu
