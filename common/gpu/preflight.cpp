#include "common/gpu/preflight.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "common/gpu/nvml.hpp"

#include <fmt/format.h>
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

GpuProcessWatch::GpuProcessWatch(std::string pci_bus_id) : pci_bus_id_(std::move(pci_bus_id)), ledger_(pci_bus_id_) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      sample();
      lock.lock();
      stop_requested_.wait_for(lock, kSamplePeriod, [this] { return stopping_; });
    }
  });
}

GpuProcessWatch::~GpuProcessWatch() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_requested_.notify_all();
  thread_.join();
}

void GpuProcessWatch::sample() {
  GpuActivity now = query_gpu_activity(pci_bus_id_);
  if (!now.compute_processes) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  ledger_.update();
  if (!busiest_.compute_processes || *other_processes(now) > *other_processes(busiest_)) busiest_ = std::move(now);
}

GpuActivity GpuProcessWatch::busiest() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  GpuActivity busiest = busiest_;
  busiest.tenants = busiest.compute_processes ? ledger_.tenants() : std::nullopt;
  return busiest;
}

std::optional<int> other_processes(const GpuActivity& activity) {
  if (!activity.compute_processes) return std::nullopt;
  // NVML lists this process too (by its host PID, which differs from getpid() in a container);
  // idle cudalab processes (waiting for their turn, rendering, at a prompt) do not count.
  return std::max(0, *activity.compute_processes - 1 - activity.idle_cudalab_processes.value_or(0));
}

std::optional<int> working_others(const GpuActivity& activity) {
  if (!activity.compute_processes) return std::nullopt;
  if (!activity.tenants) return other_processes(activity);
  return static_cast<int>(std::count_if(activity.tenants->begin(), activity.tenants->end(),
                                        [](const Tenant& t) { return t.worked(); }));
}

double host_load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

namespace {

// "pid 4242: SM 99%, memory 2%, CPU 100%", the figures behind a tenant's verdict.
std::string tenant_figures(const Tenant& t) {
  std::string text = fmt::format("pid {}: SM {}%, memory {}%", t.pid, t.sm_percent, t.memory_percent);
  if (t.cpu_share) text += fmt::format(", CPU {:.0f}%", 100 * *t.cpu_share);
  return text;
}

std::string figures_of(const std::vector<Tenant>& tenants, bool worked) {
  std::string text;
  for (const auto& t : tenants) {
    if (t.worked() != worked) continue;
    text += (text.empty() ? "" : "; ") + tenant_figures(t);
  }
  return text;
}

// Disturbed when another process worked on the GPU while the lesson measured, or another run took
// this GPU's turn beside ours; an idle context (a notebook left open) is named and clean.
EnvironmentItem processes_item(const ClassroomSnapshot& s) {
  if (s.turn_shared) {
    return {"other_processes", false,
            "another run held this GPU's turn beside this one (this run was passed over in the queue): its figures "
            "may be shared, run it again"};
  }
  const GpuActivity& watched = s.busiest_during;
  int holding = 0, working = 0;
  bool known = false, work_known = true;
  for (const GpuActivity* a : {&s.before, &watched, &s.after}) {
    if (const auto others = other_processes(*a)) {
      known = true;
      holding = std::max(holding, *others);
      work_known = work_known && a->tenants.has_value();
      working = std::max(working, working_others(*a).value_or(0));
    }
  }
  if (!known) return {"other_processes", true, "other processes on the GPU: unknown (NVML unavailable)"};
  const std::vector<Tenant> seen = watched.tenants.value_or(std::vector<Tenant>{});
  if (working > 0) {
    const std::string figures = figures_of(seen, true);
    return {"other_processes", false,
            fmt::format("{} other process{} worked on the GPU while the lesson measured: its figures are shared, "
                        "expect noise (wait with --wait-idle SECONDS){}{}",
                        working, working == 1 ? "" : "es", figures.empty() ? "" : "; " + figures,
                        work_known ? "" : "; NVML cannot tell idle processes from working ones here, so every process "
                                          "with a context counts")};
  }
  if (holding == 0) return {"other_processes", true, "no other process used the GPU while the lesson measured"};
  const std::string figures = figures_of(seen, false);
  return {"other_processes", true,
          fmt::format("{} held a context on the GPU and did no work while the lesson measured{}",
                      holding == 1 ? "another process" : fmt::format("{} other processes", holding),
                      figures.empty() ? "" : " (" + figures + ")")};
}

EnvironmentItem clocks_item(const GpuActivity& a) {
  if (!a.sm_clock_mhz || !a.sm_clock_max_mhz) return {"clocks", true, "clocks: unknown (NVML unavailable)"};
  const std::uint64_t reasons = a.clock_event_reasons.value_or(0);
  const bool slowed = (reasons & kSlowdownReasons) != 0;
  std::string text = fmt::format("clocks at the end: SM {} of {} MHz", *a.sm_clock_mhz, *a.sm_clock_max_mhz);
  if (a.memory_clock_mhz && a.memory_clock_max_mhz) {
    text += fmt::format(", memory {} of {} MHz", *a.memory_clock_mhz, *a.memory_clock_max_mhz);
  }
  if (slowed) text += fmt::format("; slowed down by heat or power (NVML reasons 0x{:x})", reasons);
  return {"clocks", !slowed, text};
}

EnvironmentItem link_item(const std::optional<PcieLink>& link) {
  if (!link) return {"pcie_link", true, "PCIe link: unknown (NVML unavailable)"};
  const bool narrow = link->width < link->max_width;
  return {"pcie_link", !narrow,
          fmt::format("PCIe link trained at Gen{} x{} (max Gen{} x{}){}", link->generation, link->width,
                      link->max_generation, link->max_width,
                      narrow ? ": fewer lanes than the link can use, copies will be slower" : "")};
}

EnvironmentItem host_item(const ClassroomSnapshot& s) {
  if (s.host_load < 0 || s.host_cpus <= 0) return {"host_load", true, "host load: unknown"};
  const bool busy = s.host_load > 0.75 * s.host_cpus;
  return {"host_load", !busy,
          fmt::format("host load {:.1f} over {} CPUs{}{}", s.host_load, s.host_cpus,
                      busy ? ": a busy host delays launches and callbacks" : "",
                      s.thread_pinned ? "; measuring thread pinned to the GPU's NUMA node" : "")};
}

}  // namespace

std::vector<EnvironmentItem> classroom_items(const DeviceInfo& device, const ClassroomSnapshot& s) {
  std::vector<EnvironmentItem> items{processes_item(s), clocks_item(s.after), link_item(s.link_after), host_item(s)};
  const bool mig = s.after.mig_enabled.value_or(false) || device.name.find("MIG") != std::string::npos;
  const bool mps = env_set("CUDA_MPS_PIPE_DIRECTORY") || env_set("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  items.push_back({"mig_mps", !mig && !mps,
                   mig ? "MIG is on: the lesson sees a slice of the GPU"
                       : mps ? "an MPS environment is configured: kernels share the GPU with other clients"
                             : "whole GPU: no MIG, no MPS"});
  return items;
}

}  // namespace cudalab
