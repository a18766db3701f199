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

std::vector<Message> preflight_warnings(const DeviceInfo& d) {
  std::vector<Message> out;
  for (const auto& finding : preflight(d)) {
    // A finding's words are fixed (the literals above), so "summary: detail" is a fixed template
    // too, with an entry of its own in cudalab.po: Chinese words the pair in its own way.
    if (!finding.ok) out.push_back(Message(finding.summary + ": " + finding.detail));
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
Message tenant_figures(const Tenant& t) {
  if (!t.cpu_share) {
    return msg("pid {pid}: SM {sm}%, memory {memory}%", arg("pid", t.pid), arg("sm", t.sm_percent),
               arg("memory", t.memory_percent));
  }
  return msg("pid {pid}: SM {sm}%, memory {memory}%, CPU {cpu}%", arg("pid", t.pid), arg("sm", t.sm_percent),
             arg("memory", t.memory_percent), arg("cpu", fmt::format("{:.0f}", 100 * *t.cpu_share)));
}

// The figures of the tenants that worked (or did not), one each.
std::vector<Message> figures_of(const std::vector<Tenant>& tenants, bool worked) {
  std::vector<Message> figures;
  for (const auto& t : tenants) {
    if (t.worked() == worked) figures.push_back(tenant_figures(t));
  }
  return figures;
}

// Disturbed when another process worked on the GPU while the lesson measured, or another run took
// this GPU's turn beside ours; an idle context (a notebook left open) is named and clean. A
// disturbance is "{found}: {advice}": Report::disturbance() gives the finding as the reason.
EnvironmentItem processes_item(const ClassroomSnapshot& s) {
  if (s.turn_shared) {
    return {"other_processes", false,
            msg("{found}: {advice}",
                arg("found",
                    "another run held this GPU's turn beside this one (this run was passed over in the queue)"),
                arg("advice", "its figures may be shared, run it again"))};
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
  if (!known) return {"other_processes", true, Message("other processes on the GPU: unknown (NVML unavailable)")};
  const std::vector<Tenant> seen = watched.tenants.value_or(std::vector<Tenant>{});
  if (working > 0) {
    const Message found = working == 1
                              ? msg("{count} other process worked on the GPU while the lesson measured",
                                    arg("count", working))
                              : msg("{count} other processes worked on the GPU while the lesson measured",
                                    arg("count", working));
    std::vector<Message> advice{Message("its figures are shared, expect noise (wait with --wait-idle SECONDS)")};
    for (auto& figures : figures_of(seen, true)) advice.push_back(std::move(figures));
    if (!work_known) {
      advice.push_back(
          Message("NVML cannot tell idle processes from working ones here, so every process with a context counts"));
    }
    return {"other_processes", false, msg("{found}: {advice}", arg("found", found), arg("advice", join(advice, "; ")))};
  }
  if (holding == 0) {
    return {"other_processes", true, Message("no other process used the GPU while the lesson measured")};
  }
  const std::vector<Message> figures = figures_of(seen, false);
  if (figures.empty()) {
    return {"other_processes", true,
            holding == 1 ? msg("another process held a context on the GPU and did no work while the lesson measured")
                         : msg("{count} other processes held a context on the GPU and did no work while the lesson "
                               "measured",
                               arg("count", holding))};
  }
  return {"other_processes", true,
          holding == 1 ? msg("another process held a context on the GPU and did no work while the lesson measured "
                             "({figures})",
                             arg("figures", join(figures, "; ")))
                       : msg("{count} other processes held a context on the GPU and did no work while the lesson "
                             "measured ({figures})",
                             arg("count", holding), arg("figures", join(figures, "; ")))};
}

EnvironmentItem clocks_item(const GpuActivity& a) {
  if (!a.sm_clock_mhz || !a.sm_clock_max_mhz) return {"clocks", true, Message("clocks: unknown (NVML unavailable)")};
  const std::uint64_t reasons = a.clock_event_reasons.value_or(0);
  const bool slowed = (reasons & kSlowdownReasons) != 0;
  const bool memory = a.memory_clock_mhz && a.memory_clock_max_mhz;
  Message text;
  if (memory && slowed) {
    text = msg("clocks at the end: SM {sm} of {sm_max} MHz, memory {memory} of {memory_max} MHz; slowed down by heat "
               "or power (NVML reasons {reasons})",
               arg("sm", *a.sm_clock_mhz), arg("sm_max", *a.sm_clock_max_mhz), arg("memory", *a.memory_clock_mhz),
               arg("memory_max", *a.memory_clock_max_mhz), arg("reasons", fmt::format("0x{:x}", reasons)));
  } else if (memory) {
    text = msg("clocks at the end: SM {sm} of {sm_max} MHz, memory {memory} of {memory_max} MHz",
               arg("sm", *a.sm_clock_mhz), arg("sm_max", *a.sm_clock_max_mhz), arg("memory", *a.memory_clock_mhz),
               arg("memory_max", *a.memory_clock_max_mhz));
  } else if (slowed) {
    text = msg("clocks at the end: SM {sm} of {sm_max} MHz; slowed down by heat or power (NVML reasons {reasons})",
               arg("sm", *a.sm_clock_mhz), arg("sm_max", *a.sm_clock_max_mhz),
               arg("reasons", fmt::format("0x{:x}", reasons)));
  } else {
    text = msg("clocks at the end: SM {sm} of {sm_max} MHz", arg("sm", *a.sm_clock_mhz),
               arg("sm_max", *a.sm_clock_max_mhz));
  }
  return {"clocks", !slowed, text};
}

EnvironmentItem link_item(const std::optional<PcieLink>& link) {
  if (!link) return {"pcie_link", true, Message("PCIe link: unknown (NVML unavailable)")};
  const bool narrow = link->width < link->max_width;
  Message text = narrow ? msg("PCIe link trained at Gen{generation} x{width} (max Gen{max_generation} x{max_width}): "
                              "fewer lanes than the link can use, copies will be slower")
                        : msg("PCIe link trained at Gen{generation} x{width} (max Gen{max_generation} x{max_width})");
  text.with(arg("generation", link->generation)).with(arg("width", link->width));
  text.with(arg("max_generation", link->max_generation)).with(arg("max_width", link->max_width));
  return {"pcie_link", !narrow, text};
}

EnvironmentItem host_item(const ClassroomSnapshot& s) {
  if (s.host_load < 0 || s.host_cpus <= 0) return {"host_load", true, Message("host load: unknown")};
  const bool busy = s.host_load > 0.75 * s.host_cpus;
  Message text;
  if (busy && s.thread_pinned) {
    text = msg("host load {load} over {cpus} CPUs: a busy host delays launches and callbacks; measuring thread pinned "
               "to the GPU's NUMA node");
  } else if (busy) {
    text = msg("host load {load} over {cpus} CPUs: a busy host delays launches and callbacks");
  } else if (s.thread_pinned) {
    text = msg("host load {load} over {cpus} CPUs; measuring thread pinned to the GPU's NUMA node");
  } else {
    text = msg("host load {load} over {cpus} CPUs");
  }
  text.with(arg("load", fmt::format("{:.1f}", s.host_load))).with(arg("cpus", s.host_cpus));
  return {"host_load", !busy, text};
}

}  // namespace

std::vector<EnvironmentItem> classroom_items(const DeviceInfo& device, const ClassroomSnapshot& s) {
  std::vector<EnvironmentItem> items{processes_item(s), clocks_item(s.after), link_item(s.link_after), host_item(s)};
  const bool mig = s.after.mig_enabled.value_or(false) || device.name.find("MIG") != std::string::npos;
  const bool mps = env_set("CUDA_MPS_PIPE_DIRECTORY") || env_set("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  items.push_back({"mig_mps", !mig && !mps,
                   mig   ? Message("MIG is on: the lesson sees a slice of the GPU")
                   : mps ? Message("an MPS environment is configured: kernels share the GPU with other clients")
                         : Message("whole GPU: no MIG, no MPS")});
  return items;
}

}  // namespace cudalab
