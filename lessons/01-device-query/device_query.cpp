// Lesson 01: the GPU as a factory of engines. Reads every property the later lessons depend
// on, annotates each with the lesson where it matters, draws the engines, and runs one small
// verified kernel to prove the binary has code for this GPU.
#include <algorithm>

#include <fmt/format.h>

#include "common/cuda/device.hpp"
#include "common/bench/lesson.hpp"
#include "common/trace/nvtx.hpp"
#include "common/cuda/preflight.hpp"
#include "common/cuda/smoke_kernel.hpp"
#include "common/report/text_format.hpp"
#include "common/trace/trace_session.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kSmokeElements = 1 << 20;

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string bytes_human(std::size_t bytes) {
  const double gib = static_cast<double>(bytes) / (1024.0 * 1024 * 1024);
  if (gib >= 1) return fmt::format("{:.1f} GiB", gib);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024));
}

// The factory drawing: which engines this GPU has and which lesson puts each to work.
std::vector<std::string> factory_art(const DeviceInfo& d) {
  std::vector<std::string> rows;
  if (d.async_engine_count >= 2) {
    rows.push_back("H2D copy engine   unloads inputs from the host       lessons 02, 03");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels          lessons 03, 04, 07", d.sm_count));
    rows.push_back("D2H copy engine   ships results back to the host     lessons 02, 03");
    if (d.async_engine_count > 2) {
      rows.push_back(fmt::format("+{} more copy engine{}  (device-to-device, peer copies)", d.async_engine_count - 2,
                                 d.async_engine_count - 2 == 1 ? "" : "s"));
    }
  } else if (d.async_engine_count == 1) {
    rows.push_back("copy engine       one dock for both directions       lessons 02, 03");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels          lessons 03, 04, 07", d.sm_count));
  } else {
    rows.push_back("no copy engine    copies and kernels take turns");
    rows.push_back(fmt::format("compute engine    {:>3} SMs run the kernels", d.sm_count));
  }
  std::size_t inner = 0;
  for (const auto& r : rows) inner = std::max(inner, display_width(r));
  const std::string link =
      d.pcie ? fmt::format("PCIe Gen{} x{}", d.pcie->max_generation, d.pcie->max_width) : std::string("PCIe");
  std::vector<std::string> art;
  art.push_back(fmt::format("host memory ══ {} ══▶ {}", link, d.name));
  art.push_back("┌" + repeat_text("─", inner + 2) + "┐");
  for (const auto& r : rows) art.push_back("│ " + pad_right(r, inner) + " │");
  art.push_back("└" + repeat_text("─", inner + 2) + "┘");
  art.push_back(d.async_engine_count >= 2 ? "each engine has its own queue: all three can be busy at the same moment"
                                          : "engines that share a queue take turns");
  return art;
}

Section device_section(const DeviceInfo& d) {
  Section s;
  s.key = fmt::format("device{}", d.index);
  s.title = fmt::format("device {} · {}", d.index, d.name);
  s.notes_key = d.index == 0 ? "engines" : "";
  s.art = factory_art(d);
  auto fact = [&](std::string key, std::string label, std::string value, std::string note, bool stable = true) {
    s.facts.push_back(Fact{std::move(key), std::move(label), std::move(value), std::move(note), stable});
  };
  fact("compute_capability", "compute capability", fmt::format("{}.{} (sm_{}{})", d.cc_major, d.cc_minor, d.cc_major, d.cc_minor), "");
  fact("sm_count", "multiprocessors (SMs)", std::to_string(d.sm_count), "the compute engine's width: lesson 04 fills every one");
  fact("global_memory", "global memory", bytes_human(d.global_memory_bytes), "", false);
  fact("l2_cache", "L2 cache", bytes_human(static_cast<std::size_t>(d.l2_cache_bytes)), "", false);
  fact("memory_bus", "memory bus", fmt::format("{}-bit at {} MHz", d.memory_bus_width_bits, d.memory_clock_khz / 1000),
       fmt::format("peak {:.0f} GB/s on the device side", d.peak_memory_bandwidth_gbps()), false);
  fact("copy_engines", "copy engines", std::to_string(d.async_engine_count),
       d.async_engine_count >= 2 ? "H2D and D2H run at once, beside kernels → lessons 02, 03"
                                 : "H2D and D2H share one engine → lesson 03 shows issue order matters");
  fact("concurrent_kernels", "concurrent kernels", yes_no(d.concurrent_kernels),
       "kernels from different streams can share the SMs → lesson 07");
  fact("priority_range", "stream priorities", fmt::format("{} … {}", d.priority_least, d.priority_greatest),
       fmt::format("lower number = higher priority; {} is the most urgent → lesson 04", d.priority_greatest));
  fact("host_mapped", "host-mapped memory", yes_no(d.can_map_host_memory), "kernels can read pinned host memory directly");
  fact("pageable_access", "pageable memory access", yes_no(d.pageable_memory_access),
       "no: kernels cannot touch malloc'd memory; copies of it are staged → lesson 02");
  fact("unified_addressing", "unified addressing", yes_no(d.unified_addressing), "one address space for host and device pointers");
  fact("pci_bus_id", "PCI bus id", d.pci_bus_id, "", false);
  if (d.pcie) {
    fact("pcie_max", "PCIe link (max)", fmt::format("Gen{} x{}", d.pcie->max_generation, d.pcie->max_width),
         fmt::format("{:.1f} GB/s each way in theory → lesson 02 measures how close copies get",
                     d.pcie->theoretical_gbps()));
    fact("pcie_now", "PCIe link (now)", fmt::format("Gen{} x{}", d.pcie->generation, d.pcie->width),
         "an idle link may train down to save power; it speeds up under load", false);
  } else {
    fact("pcie_max", "PCIe link", "unknown", "NVML (libnvidia-ml.so.1) could not be loaded", false);
  }
  fact("compute_mode", "compute mode", d.compute_mode == 0 ? "default" : std::to_string(d.compute_mode),
       d.compute_mode == 0 ? "" : "not default: other processes may be locked out or in", false);
  return s;
}

class DeviceQuery final : public Lesson {
 public:
  void add_options(CLI::App&) override {}
  Repetitions default_repetitions() const override { return {0, 1}; }

  Report run(const RunContext& ctx) override {
    const int count = device_count();
    std::vector<int> indices;
    if (ctx.device_given) {
      use_device(ctx.device);
      indices.push_back(ctx.device);
    } else {
      for (int i = 0; i < count; ++i) indices.push_back(i);
    }

    Report r;
    r.params.push_back(Param{"device", ctx.device_given ? std::to_string(ctx.device) : "all", true});

    Section system;
    system.key = "system";
    system.title = "system";
    system.facts.push_back(Fact{"driver", "CUDA driver", driver_version(), "what the installed driver supports", false});
    system.facts.push_back(Fact{"runtime", "CUDA runtime", runtime_version(), "linked statically into cudalab", false});
    system.facts.push_back(Fact{"device_count", "devices", std::to_string(count), "", false});
    if (count > 1) {
      Table peers;
      peers.key = "peer_access";
      peers.columns.push_back("can access →");
      for (int j = 0; j < count; ++j) peers.columns.push_back(fmt::format("dev {}", j));
      const auto matrix = peer_access_matrix(count);
      for (int i = 0; i < count; ++i) {
        std::vector<Cell> row{Cell{fmt::format("dev {}", i), ""}};
        for (int j = 0; j < count; ++j) row.push_back(Cell{i == j ? "·" : yes_no(matrix[i][j]), ""});
        peers.rows.push_back(std::move(row));
      }
      system.tables.push_back(std::move(peers));
    }
    r.sections.push_back(std::move(system));

    std::vector<DeviceInfo> infos;
    for (int i : indices) {
      infos.push_back(query_device(i));
      r.devices.push_back(summary_of(infos.back()));
      r.sections.push_back(device_section(infos.back()));
    }

    const DeviceInfo& first = infos.front();
    Section pre;
    pre.key = "preflight";
    pre.title = "preflight: will the next lessons behave?";
    pre.notes_key = "preflight";
    r.sections.push_back(std::move(pre));
    for (const auto& f : preflight(first)) {
      r.checks.push_back(expect_check("preflight." + f.key, f.ok, f.summary, f.detail));
    }
    r.warnings = preflight_warnings(first);

    for (const auto& d : infos) {
      CUDALAB_CUDA_CHECK(cudaSetDevice(d.index));
      const NvtxRange phase("smoke kernel");
      const std::size_t correct = run_smoke_kernel(kSmokeElements);
      r.checks.push_back(verify_check(
          fmt::format("smoke_kernel.device{}", d.index), correct == kSmokeElements,
          fmt::format("device {} ran a kernel built for sm_{}{}: {} of {} elements match the CPU", d.index,
                      d.cc_major, d.cc_minor, format_count(correct), format_count(kSmokeElements)),
          "a kernel that writes wrong values or none at all: the binary may lack code for this GPU"));
    }

    if (ctx.tracing()) {
      // The smallest timeline: memset, kernel and copy-back queued on one stream. The verified
      // run above already checked the results; this extra run exists for its picture.
      CUDALAB_CUDA_CHECK(cudaSetDevice(first.index));
      TraceSession trace;
      trace.name_stream(nullptr, "default stream");
      {
        const NvtxRange phase("smoke kernel (traced)");
        (void)run_smoke_kernel(kSmokeElements);
      }
      if (auto t = trace.finish("smoke kernel: memset, kernel, copy back", "timeline")) {
        r.timelines.push_back(std::move(*t));
      }
    }

    r.headline = fmt::format("{} · {} copy engines · priorities {}…{}{}", first.name, first.async_engine_count,
                             first.priority_least, first.priority_greatest,
                             first.pcie ? fmt::format(" · Gen{} x{}", first.pcie->max_generation, first.pcie->max_width) : "");
    r.try_next = {
        {"cudalab pinned-vs-pageable", "how fast can the copy engines really move data?"},
        {"cudalab device-query --format json", "every field, machine-readable"},
        {"cudalab device-query --timeline", "what the GPU did, one lane per stream"},
        {"cudalab list", "the whole course"},
    };
    return r;
  }
};

}  // namespace

std::unique_ptr<Lesson> make_device_query() { return std::make_unique<DeviceQuery>(); }

}  // namespace cudalab
