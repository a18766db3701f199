#include "common/gpu/nvml.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <tuple>
#include <vector>

#include "common/core/run_children.hpp"
#include "common/queue/gpu_presence.hpp"
#include "common/queue/holders.hpp"

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
      for (unsigned i = 0; i < count && i < listed.size(); ++i) {
        // A process this run started to measure for it (an exercise's child) is this run.
        if (!is_run_child(static_cast<long>(listed[i].pid))) pids.push_back(static_cast<long>(listed[i].pid));
      }
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

// nvmlProcessUtilizationSample_t, as NVML lays it out.
struct NvmlProcessSample {
  unsigned pid;
  unsigned long long time_stamp_us;
  unsigned sm_util, mem_util, enc_util, dec_util;
};
constexpr int kNvmlNotFound = 6;

}  // namespace

std::optional<std::vector<ProcessWork>> query_process_work(const std::string& pci_bus_id,
                                                           unsigned long long since_us) {
  using Fn = int (*)(void*, NvmlProcessSample*, unsigned*, unsigned long long);
  const auto fn = nvml().get<Fn>("nvmlDeviceGetProcessUtilization");
  void* device = nvml().device(pci_bus_id);
  if (device == nullptr || fn == nullptr) return std::nullopt;
  unsigned count = 0;
  int rc = fn(device, nullptr, &count, since_us);
  if (rc == kNvmlNotFound) return std::vector<ProcessWork>{};  // nobody worked since then
  // A process may start working between the two calls: room to spare and a few tries.
  for (int attempt = 0; attempt < 4 && (rc == kNvmlInsufficientSize || rc == kNvmlSuccess); ++attempt) {
    std::vector<NvmlProcessSample> samples(count + 8);
    count = static_cast<unsigned>(samples.size());
    rc = fn(device, samples.data(), &count, since_us);
    if (rc == kNvmlNotFound) return std::vector<ProcessWork>{};
    if (rc != kNvmlSuccess) continue;
    std::vector<ProcessWork> work;
    for (unsigned i = 0; i < count && i < samples.size(); ++i) {
      const NvmlProcessSample& s = samples[i];
      if (is_run_child(static_cast<long>(s.pid))) continue;  // the run's own child: the run's work
      work.push_back({static_cast<long>(s.pid), s.time_stamp_us, s.sm_util, s.mem_util, s.enc_util + s.dec_util});
    }
    return work;
  }
  return std::nullopt;
}

std::vector<std::string> gpus_sharing_host_path(const std::string& pci_bus_id) {
  // nvmlGpuTopologyLevel_t: 0 internal, 10 single switch, 20 multiple switches, 30 host bridge,
  // 40 NUMA node, 50 system.
  constexpr int kHostBridge = 30;
  const auto count_fn = nvml().get<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  const auto by_index = nvml().get<int (*)(unsigned, void**)>("nvmlDeviceGetHandleByIndex_v2");
  const auto ancestor = nvml().get<int (*)(void*, void*, int*)>("nvmlDeviceGetTopologyCommonAncestor");
  void* ours = nvml().device(pci_bus_id);
  unsigned count = 0;
  if (ours == nullptr || count_fn == nullptr || by_index == nullptr || count_fn(&count) != kNvmlSuccess) return {};
  std::vector<std::string> sharing;
  for (unsigned i = 0; i < count && i < 64; ++i) {
    void* other = nullptr;
    if (by_index(i, &other) != kNvmlSuccess) continue;
    int level = 0;
    const bool same = other == ours;
    const bool near = ancestor != nullptr && ancestor(ours, other, &level) == kNvmlSuccess && level <= kHostBridge;
    if (same || near) sharing.push_back(device_uuid(other));
  }
  return sharing;
}

std::optional<std::vector<long>> query_compute_pids(const std::string& pci_bus_id) {
  return compute_process_pids(nvml().device(pci_bus_id));
}

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

unsigned long long epoch_us() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

namespace {

// NVML names processes by the host's pids. Inside a container's pid namespace those are not our
// pids, and nothing can be matched: getpid() is listed only when they are.
bool nvml_pids_are_ours(const std::vector<long>& context_pids) {
  return std::find(context_pids.begin(), context_pids.end(), static_cast<long>(::getpid())) != context_pids.end();
}

}  // namespace

TenantLedger::TenantLedger(std::string pci_bus_id, unsigned long long since_us)
    : pci_bus_id_(std::move(pci_bus_id)), since_us_(since_us != 0 ? since_us : epoch_us()) {}

void TenantLedger::update() {
  void* device = nvml().device(pci_bus_id_);
  const auto pids = compute_process_pids(device);
  if (!pids || !nvml_pids_are_ours(*pids)) {
    unknown_ = true;
    return;
  }
  const long self = ::getpid();
  std::vector<long> idle;  // idle cudalab processes (queue/gpu_presence.hpp) are no tenants
  for (const long pid : *pids) {
    if (pid != self && count_idle_cudalab(device_uuid(device), {pid}) == 1) idle.push_back(pid);
  }
  std::vector<ProcessWork> none;
  for (const long pid : *pids) {
    if (pid != self && std::find(idle.begin(), idle.end(), pid) == idle.end()) none.push_back({pid, 0, 0, 0, 0});
  }
  add_samples(tenants_, none, self, idle);  // every context holder is a tenant, worker or not
  const auto work = query_process_work(pci_bus_id_, since_us_);
  if (!work) unknown_ = true;
  add_samples(tenants_, work.value_or(std::vector<ProcessWork>{}), self, idle);
  const double now = static_cast<double>(epoch_us()) / 1e6;
  for (auto& t : tenants_) {
    const auto cpu = process_cpu_seconds(t.pid);
    if (!cpu) continue;
    auto [it, first] = cpu_.try_emplace(t.pid, CpuReadings{*cpu, now, *cpu, now});
    if (!first) std::tie(it->second.last_s, it->second.last_at) = std::make_pair(*cpu, now);
    const double span = it->second.last_at - it->second.first_at;
    if (span >= 0.05) t.cpu_share = (it->second.last_s - it->second.first_s) / span;
  }
}

std::optional<std::vector<Tenant>> TenantLedger::tenants() const {
  if (unknown_) return std::nullopt;
  return tenants_;
}

std::optional<bool> has_cuda_context(const std::string& gpu_uuid, long pid) {
  const auto by_uuid = nvml().get<int (*)(const char*, void**)>("nvmlDeviceGetHandleByUUID");
  void* device = nullptr;
  if (by_uuid == nullptr || by_uuid(gpu_uuid.c_str(), &device) != kNvmlSuccess) return std::nullopt;
  const auto pids = compute_process_pids(device);
  if (!pids) return std::nullopt;
  if (std::find(pids->begin(), pids->end(), pid) != pids->end()) return true;
  // Absent from the list: believable only where NVML's pids are ours (the host's pid namespace).
  if (!in_initial_pid_namespace()) return std::nullopt;
  return false;
}

GpuActivity query_gpu_activity(const std::string& pci_bus_id, double lookback_s) {
  using ClockFn = int (*)(void*, unsigned, unsigned*);
  void* device = nvml().device(pci_bus_id);
  const auto clock = nvml().get<ClockFn>("nvmlDeviceGetClockInfo");
  const auto max_clock = nvml().get<ClockFn>("nvmlDeviceGetMaxClockInfo");
  GpuActivity a;
  if (const auto pids = compute_process_pids(device)) {
    a.compute_processes = static_cast<int>(pids->size());
    a.idle_cudalab_processes = count_idle_cudalab(device_uuid(device), *pids);
    TenantLedger ledger(pci_bus_id, epoch_us() - static_cast<unsigned long long>(std::max(0.0, lookback_s) * 1e6));
    ledger.update();
    a.tenants = ledger.tenants();
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
