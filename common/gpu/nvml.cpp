#include "common/gpu/nvml.hpp"

#include <dlfcn.h>

#include <vector>

#include "common/queue/gpu_presence.hpp"

namespace cudalab {

namespace {

// Only the entry points we use, declared with NVML's stable C ABI: nvmlReturn_t is an int
// (0 = success) and nvmlDevice_t an opaque pointer.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlInsufficientSize = 7;
constexpr unsigned kClockSm = 1;
constexpr unsigned kClockMemory = 2;

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return handle == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(handle, name));
}

class Nvml {
 public:
  Nvml() {
    handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    init_ = symbol<int (*)()>(handle_, "nvmlInit_v2");
    shutdown_ = symbol<int (*)()>(handle_, "nvmlShutdown");
    by_bus_id_ = symbol<int (*)(const char*, void**)>(handle_, "nvmlDeviceGetHandleByPciBusId_v2");
    ready_ = init_ && shutdown_ && by_bus_id_ && init_() == kNvmlSuccess;
  }
  ~Nvml() {
    if (ready_) shutdown_();
    if (handle_ != nullptr) dlclose(handle_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  void* device(const std::string& bus_id) const {
    void* d = nullptr;
    return ready_ && by_bus_id_(bus_id.c_str(), &d) == kNvmlSuccess ? d : nullptr;
  }
  template <typename Fn>
  Fn get(const char* name) const {
    return ready_ ? symbol<Fn>(handle_, name) : nullptr;
  }

 private:
  void* handle_ = nullptr;
  bool ready_ = false;
  int (*init_)() = nullptr;
  int (*shutdown_)() = nullptr;
  int (*by_bus_id_)(const char*, void**) = nullptr;
};

const Nvml& nvml() {
  static const Nvml library;
  return library;
}

std::optional<unsigned> read_unsigned(void* device, int (*fn)(void*, unsigned*)) {
  unsigned v = 0;
  if (device == nullptr || fn == nullptr || fn(device, &v) != kNvmlSuccess) return std::nullopt;
  return v;
}

std::optional<unsigned> read_clock(void* device, int (*fn)(void*, unsigned, unsigned*), unsigned type) {
  unsigned mhz = 0;
  if (device == nullptr || fn == nullptr || fn(device, type, &mhz) != kNvmlSuccess) return std::nullopt;
  return mhz;
}

// One entry of NVML's compute process list, as the _v2 and _v3 calls fill it
// (nvmlProcessInfo_v2_t, and nvmlProcessInfo_t of the v3 API: the same four fields).
struct NvmlProcessInfo {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

// The pids of the processes with a compute context on the device. Asked first with an empty
// array: NVML then answers "insufficient size" with the count, or success when there are none;
// a process may arrive between two calls, so there is room to spare and a few tries.
std::optional<std::vector<long>> compute_process_pids(void* device) {
  using Fn = int (*)(void*, unsigned*, NvmlProcessInfo*);
  auto fn = nvml().get<Fn>("nvmlDeviceGetComputeRunningProcesses_v3");
  if (fn == nullptr) fn = nvml().get<Fn>("nvmlDeviceGetComputeRunningProcesses_v2");
  if (device == nullptr || fn == nullptr) return std::nullopt;
  unsigned count = 0;
  int rc = fn(device, &count, nullptr);
  for (int attempt = 0; attempt < 4 && rc == kNvmlInsufficientSize; ++attempt) {
    std::vector<NvmlProcessInfo> listed(count + 8);
    count = static_cast<unsigned>(listed.size());
    rc = fn(device, &count, listed.data());
    if (rc == kNvmlSuccess) {
      std::vector<long> pids;
      for (unsigned i = 0; i < count && i < listed.size(); ++i) pids.push_back(static_cast<long>(listed[i].pid));
      return pids;
    }
  }
  if (rc == kNvmlSuccess) return std::vector<long>{};
  return std::nullopt;
}

// "GPU-8f0e1c2a-...", the name of the GPU's folder in the queue.
std::string device_uuid(void* device) {
  auto fn = nvml().get<int (*)(void*, char*, unsigned)>("nvmlDeviceGetUUID");
  char uuid[96] = {};
  if (device == nullptr || fn == nullptr || fn(device, uuid, sizeof uuid) != kNvmlSuccess) return {};
  uuid[sizeof uuid - 1] = '\0';
  return uuid;
}

std::optional<std::uint64_t> clock_event_reasons(void* device) {
  using Fn = int (*)(void*, unsigned long long*);
  auto fn = nvml().get<Fn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (fn == nullptr) fn = nvml().get<Fn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned long long reasons = 0;
  if (device == nullptr || fn == nullptr || fn(device, &reasons) != kNvmlSuccess) return std::nullopt;
  return static_cast<std::uint64_t>(reasons);
}

std::optional<bool> mig_enabled(void* device) {
  auto fn = nvml().get<int (*)(void*, unsigned*, unsigned*)>("nvmlDeviceGetMigMode");
  unsigned current = 0, pending = 0;
  // Not supported (no MIG on this GPU) answers with an error: that is "off".
  if (device == nullptr || fn == nullptr) return std::nullopt;
  return fn(device, &current, &pending) == kNvmlSuccess && current == 1;
}

}  // namespace

std::optional<PcieLink> query_pcie_link(const std::string& pci_bus_id) {
  using Fn = int (*)(void*, unsigned*);
  void* device = nvml().device(pci_bus_id);
  const auto gen = read_unsigned(device, nvml().get<Fn>("nvmlDeviceGetCurrPcieLinkGeneration"));
  const auto width = read_unsigned(device, nvml().get<Fn>("nvmlDeviceGetCurrPcieLinkWidth"));
  const auto max_gen = read_unsigned(device, nvml().get<Fn>("nvmlDeviceGetMaxPcieLinkGeneration"));
  const auto max_width = read_unsigned(device, nvml().get<Fn>("nvmlDeviceGetMaxPcieLinkWidth"));
  if (!gen || !width || !max_gen || !max_width) return std::nullopt;
  return PcieLink{static_cast<int>(*gen), static_cast<int>(*width), static_cast<int>(*max_gen),
                  static_cast<int>(*max_width)};
}

GpuActivity query_gpu_activity(const std::string& pci_bus_id) {
  using ClockFn = int (*)(void*, unsigned, unsigned*);
  void* device = nvml().device(pci_bus_id);
  const auto clock = nvml().get<ClockFn>("nvmlDeviceGetClockInfo");
  const auto max_clock = nvml().get<ClockFn>("nvmlDeviceGetMaxClockInfo");
  GpuActivity a;
  if (const auto pids = compute_process_pids(device)) {
    a.compute_processes = static_cast<int>(pids->size());
    a.idle_cudalab_processes = count_idle_cudalab(device_uuid(device), *pids);
  }
  a.sm_clock_mhz = read_clock(device, clock, kClockSm);
  a.sm_clock_max_mhz = read_clock(device, max_clock, kClockSm);
  a.memory_clock_mhz = read_clock(device, clock, kClockMemory);
  a.memory_clock_max_mhz = read_clock(device, max_clock, kClockMemory);
  a.clock_event_reasons = clock_event_reasons(device);
  a.mig_enabled = mig_enabled(device);
  return a;
}

bool pin_thread_near_gpu(const std::string& pci_bus_id) {
  auto fn = nvml().get<int (*)(void*)>("nvmlDeviceSetCpuAffinity");
  void* device = nvml().device(pci_bus_id);
  return device != nullptr && fn != nullptr && fn(device) == kNvmlSuccess;
}

}  // namespace cudalab
