#include "report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "kernel_shapes.hpp"

namespace cudalab::multi_gpu {

namespace {

// NCCL's version code (NCCL_VERSION_CODE form, e.g. 22809) as "2.28.9".
std::string nccl_version_text(int code) {
  // Since NCCL 2.9 the code is major * 10000 + minor * 100 + patch; before, major * 1000 + minor * 100.
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code / 100 % 10, code % 100);
}


std::vector<double> bandwidths(std::uint64_t bytes, const std::vector<double>& ms) {
  std::vector<double> out;
  for (const double t : ms) out.push_back(gigabytes_per_s(bytes, t));
  return out;
}

bool copies_measured(const Measurements& m) { return !m.copies.large_ms.empty(); }

const char* limit_text(BothWaysLimit limit) {
  switch (limit) {
    case BothWaysLimit::full_duplex: return "nothing: full duplex";
    case BothWaysLimit::copy_engines: return "the copy engines";
    case BothWaysLimit::link: return "the link";
    case BothWaysLimit::not_measured: break;
  }
  return "not measured";
}

// The figures behind the verdict, each a median of this run.
Message limit_reason(const Measurements& m, const Prediction& pr) {
  const PeerCopies& c = m.copies;
  const double one_way = median_of(bandwidths(c.large_bytes, c.large_ms));
  const double both = median_of(bandwidths(2 * c.large_bytes, c.both_ms));
  const double sm_both = median_of(bandwidths(2 * c.large_bytes, c.sm_both_ms));
  switch (pr.both_ways_limit) {
    case BothWaysLimit::full_duplex:
      return msg("copy engines both ways {ratio}x one way", arg("ratio", fmt::format("{:.2f}", both / one_way)));
    case BothWaysLimit::copy_engines:
    case BothWaysLimit::link:
      return msg("SM copies carried {ratio}x the copy engines' {gbps} GB/s both ways",
                 arg("ratio", fmt::format("{:.2f}", sm_both / both)), arg("gbps", fmt::format("{:.0f}", both)));
    case BothWaysLimit::not_measured: break;
  }
  return {};
}

// The NCCL variables that steered the transport (data), or that none did.
Message transport_text(const NcclSettings& settings) {
  if (settings.empty()) return "NCCL's choice";
  std::string text;
  for (const auto& [name, value] : settings) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return verbatim(text);
}

// One process per GPU: which rank measured which GPU, on which host.
void ranks_section(ReportBuilder& b, const Measurements& m) {
  const Processes& run = m.processes;
  auto section = b.section("ranks", "one process per GPU, as training runs");
  section.fact("processes", "processes", verbatim(std::to_string(run.world_size)),
               msg("one per GPU, placed by {source}; rank 0 gathered and reports", arg("source", run.source)), false);
  for (std::size_t r = 0; r < m.gpus.size(); ++r) {
    const GpuFacts& g = m.gpus[r];
    section.fact(fmt::format("rank{}", r), msg("rank {rank}", arg("rank", r)), verbatim(g.summary.name),
                 msg("on {host}, its device {device}; {sms} SMs, priorities {least} to {greatest}",
                     arg("host", r < run.hosts.size() ? run.hosts[r] : std::string("?")), arg("device", g.summary.index),
                     arg("sms", g.summary.sm_count), arg("least", g.least_priority),
                     arg("greatest", g.greatest_priority)),
                 false);
  }
}

void topology_section(ReportBuilder& b, const Measurements& m) {
  auto section = b.section("topology", "the GPUs and what links them");
  section.fact("gpus", "GPUs used", verbatim(std::to_string(m.gpus.size())),
               msg("of {visible} visible", arg("visible", m.visible_gpus)), false);
  for (const auto& g : m.gpus) {
    section.fact(fmt::format("gpu{}", g.summary.index), msg("GPU {index}", arg("index", g.summary.index)),
                 verbatim(g.summary.name),
                 msg("{sms} SMs, {engines} copy engines, priorities {least} to {greatest}",
                     arg("sms", g.summary.sm_count), arg("engines", g.summary.copy_engines),
                     arg("least", g.least_priority), arg("greatest", g.greatest_priority)),
                 false);
  }
  std::vector<std::vector<Cell>> rows;
  for (const auto& link : m.links) {
    rows.push_back({data_cell(fmt::format("{} -> {}", link.from, link.to)), text_cell(link.can_access ? "yes" : "no"),
                    data_cell(std::to_string(link.performance_rank)), text_cell(link.native_atomics ? "yes" : "no")});
  }
  section.table("links", {"pair", "peer access", "performance rank", "native atomics"}, rows);
}

void peer_section(ReportBuilder& b, const Measurements& m, const Prediction& pr) {
  const PeerCopies& c = m.copies;
  b.section("peer", msg("copies between GPU 0 and GPU 1, {size} each", arg("size", format_bytes(c.large_bytes))))
      .fact("peer_access", "peer access", c.peer_access ? "enabled both ways" : "not supported",
            c.peer_access ? "cudaDeviceEnablePeerAccess" : "cudaMemcpyPeerAsync is staged by the driver", false)
      .metric(measured("peer.latency", msg("one way, {size}", arg("size", format_bytes(c.small_bytes))), "us",
                       [&] {
                         std::vector<double> us;
                         for (const double ms : c.small_ms) us.push_back(ms * 1000.0);
                         return us;
                       }())
                  .with_note("the fixed cost of one copy"))
      .metric(measured("peer.one_way", "one way, 0 -> 1", "GB/s", bandwidths(c.large_bytes, c.large_ms))
                  .with_note("cudaMemcpyPeerAsync"))
      .metric(measured("peer.mid", msg("one way, {size}", arg("size", format_bytes(c.mid_bytes))), "ms", c.mid_ms)
                  .with_prediction(pr.mid_copy_ms)
                  .with_note("predicted: latency + bytes / bandwidth"))
      .metric(measured("peer.both_ways", "both ways at once, total", "GB/s", bandwidths(2 * c.large_bytes, c.both_ms))
                  .with_prediction(pr.both_ways_gbps)
                  .with_note(c.sm_both_ms.empty() ? "predicted: each direction at its one-way speed"
                                                  : "predicted: each direction at its one-way speed, at most what "
                                                    "the link carried both ways"))
      .metric(measured("peer.one_way.cold", "one way, after 100 ms idle", "GB/s", bandwidths(c.large_bytes, c.cold_one_ms))
                  .with_note("no warm-up copy: the link may be in its low-power state"))
      .metric(measured("peer.both_ways.cold", "both ways, after 100 ms idle", "GB/s",
                       bandwidths(2 * c.large_bytes, c.cold_both_ms)))
      .metric(measured("peer.staged", "staged through pinned host memory", "GB/s", bandwidths(c.large_bytes, c.staged_ms))
                  .with_prediction(gigabytes_per_s(c.large_bytes, pr.staged_ms))
                  .with_note("predicted: the two hops back to back"))
      .metric(measured("peer.d2h", "  first hop, GPU 0 -> host", "GB/s", bandwidths(c.large_bytes, c.d2h_ms)))
      .metric(measured("peer.h2d", "  second hop, host -> GPU 1", "GB/s", bandwidths(c.large_bytes, c.h2d_ms)));
}

// The same link driven by the SMs instead of the copy engines, and which of the two held the
// copies both ways below what the link gave.
void sm_copy_rows(ReportBuilder& b, const Measurements& m, const Prediction& pr) {
  const PeerCopies& c = m.copies;
  auto section = b.section("peer_sm", "the link driven by the SMs: a copy kernel instead of copy engines");
  if (c.sm_one_way_ms.empty() || c.sm_both_ms.empty()) {
    section.fact("sm_copies", "SM copies", "not measured", "a kernel reaches the other GPU only through peer access",
                 false);
    return;
  }
  section.fact("sm_blocks", "blocks per copy kernel", verbatim(format_count(static_cast<std::size_t>(c.sm_blocks))),
               msg("{threads} threads each, 16-byte stores, every SM filled once", arg("threads", kCopyThreads)), false)
      .metric(measured("peer.one_way_sm", "one way, 0 -> 1, SM copy", "GB/s", bandwidths(c.large_bytes, c.sm_one_way_ms))
                  .with_note("GPU 0's SMs store into GPU 1's memory"))
      .metric(measured("peer.both_ways_sm", "both ways at once, SM copies, total", "GB/s",
                       bandwidths(2 * c.large_bytes, c.sm_both_ms))
                  .with_prediction(pr.sm_both_ways_gbps)
                  .with_note("predicted: each direction at its one-way speed, at most what the link carried both ways"))
      .fact("both_ways_limit", "what holds copies both ways", limit_text(pr.both_ways_limit), limit_reason(m, pr), false);
}

void step_section(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& pr) {
  const TrainingStep& s = m.step;
  b.section("step", msg("a training step: {layers} layers, {size} of gradients each, on {gpus} GPUs",
                        arg("layers", p.layers), arg("size", format_bytes(p.grad_size)), arg("gpus", m.gpus.size())))
      .fact("nccl", "NCCL", verbatim(nccl_version_text(s.nccl_version)), "libnccl.so.2, loaded at run time", false)
      .fact("transport", "NCCL transport", transport_text(m.nccl_settings), "the NCCL variables set", false)
      .fact("layer_blocks", "blocks per layer kernel", verbatim(format_count(static_cast<std::size_t>(s.layer_blocks))),
            msg("whole waves of {us} us blocks", arg("us", kLayerBlockUs)), false)
      .fact("priorities", "stream priorities",
            msg("compute {compute}, comm in (c) {comm}", arg("compute", s.compute_priority),
                arg("comm", s.comm_priority)),
            "lower is more urgent", false)
      .metric(measured("step.layer", "one layer's kernel, alone", "ms", s.layer_ms))
      .metric(measured("step.allreduce", "one layer's all-reduce, alone", "ms", s.allreduce_ms)
                  .with_note("ncclAllReduce, sum, in place"))
      .metric(measured("step.serial", "(a) compute, then comm, one stream", "ms", s.serial_ms)
                  .with_prediction(pr.serial_ms)
                  .with_note("layers + all-reduces, end to end"))
      .metric(measured("step.overlapped", "(b) comm stream, same priority", "ms", s.overlapped_ms)
                  .with_prediction(pr.overlapped_ms)
                  .with_note("each all-reduce waits behind the next layer")
                  .with_spread_tolerance(kOverlappedSpreadTolerance))
      .metric(measured("step.priority", msg("(c) comm stream, priority {priority}", arg("priority", s.comm_priority)), "ms",
                       s.priority_ms)
                  .with_prediction(pr.priority_ms)
                  .with_note("each all-reduce starts as its layer ends"))
      .table("variants", {"variant", "measured (median)", "predicted"},
             {{text_cell("(a) one stream"), metric_cell("step.serial"), data_cell(fmt::format("{:.3f} ms", pr.serial_ms))},
              {text_cell("(b) comm stream"), metric_cell("step.overlapped"),
               data_cell(fmt::format("{:.3f} ms", pr.overlapped_ms))},
              {text_cell("(c) + priority"), metric_cell("step.priority"),
               data_cell(fmt::format("{:.3f} ms", pr.priority_ms))}});
}

void copy_checks(ReportBuilder& b, const Measurements& m) {
  const PeerCopies& c = m.copies;
  b.verify("copies", c.bytes, Counted::bytes, "every copy",
           "a wrong byte means a copy was cut short or landed in the wrong place");
  const double one_way = median_of(bandwidths(c.large_bytes, c.large_ms));
  const double both = median_of(bandwidths(2 * c.large_bytes, c.both_ms));
  const double staged = median_of(bandwidths(c.large_bytes, c.staged_ms));
  b.expect("peer_beats_staged", one_way >= kPeerOverStagedMin * staged,
           msg("a direct peer copy is at least {factor}x as fast as staging through host memory",
               arg("factor", fmt::format("{}", kPeerOverStagedMin))),
           "without peer access (PCIe switches that block it, some virtual machines) the driver stages the copy "
           "itself, and the two tie");
  b.depends_on({"peer.one_way", "peer.staged"});
  b.expect("both_ways", both >= kBothWaysMinGain * one_way,
           msg("both directions at once carry at least {factor}x one direction",
               arg("factor", fmt::format("{}", kBothWaysMinGain))),
           "NVLink and PCIe are full duplex, but the copy engines may not drive both directions at full speed at "
           "once; a link shared with other traffic can fail this too");
  b.depends_on({"peer.one_way", "peer.both_ways"});
}

void checks(ReportBuilder& b, const Measurements& m, const Prediction& pr) {
  const TrainingStep& s = m.step;
  if (copies_measured(m)) copy_checks(b, m);
  b.verify("gradients", s.gradients, "every GPU's summed gradients against the CPU's sum",
           "each GPU's gradient is a small whole number, so the float sum is exact in any order");
  const double a = median_of(s.serial_ms), bb = median_of(s.overlapped_ms), cc = median_of(s.priority_ms);
  b.expect("overlap_beats_serial", bb <= kOverlapMaxShare * a,
           msg("(b) takes at most {share}% of (a): the all-reduces hide behind the layers",
               arg("share", fmt::format("{:.0f}", kOverlapMaxShare * 100))),
           "needs layers long enough to hide an all-reduce (--layer-us) and SMs to spare for NCCL's kernels");
  b.depends_on({"step.serial", "step.overlapped"});
  b.expect("priority_helps", cc <= kPriorityMaxShare * bb,
           msg("(c) takes at most {share}% of (b): priority lets each all-reduce start as its layer ends",
               arg("share", fmt::format("{:.0f}", kPriorityMaxShare * 100))),
           "gains at most about one all-reduce; when the all-reduce is short against the step, noise can hide it");
  b.depends_on({"step.overlapped", "step.priority"});
  b.expect("serial_model", std::abs(a / pr.serial_ms - 1.0) <= kSerialModelTolerance,
           msg("(a) is within {share}% of its parts added up", arg("share", fmt::format("{:.0f}", kSerialModelTolerance * 100))),
           "a gap means the layers or all-reduces ran at another speed inside the step than alone");
  b.depends_on({"step.serial", "step.layer", "step.allreduce"});
}

// One gradient size of the sweep, --grad-size's own included, with its metrics' keys.
struct SweepRow {
  std::uint64_t bytes = 0;
  std::string layer, allreduce, serial, priority;  // metric keys
  double layer_ms = 0, allreduce_ms = 0, serial_ms = 0, priority_ms = 0;
};

std::string sweep_key(std::uint64_t bytes, const char* what) { return fmt::format("sweep.{}.{}", format_bytes(bytes), what); }

std::vector<SweepRow> sweep_rows(const Params& p, const Measurements& m) {
  const TrainingStep& s = m.step;
  std::vector<SweepRow> rows = {{p.grad_size, "step.layer", "step.allreduce", "step.serial", "step.priority",
                                 median_of(s.layer_ms), median_of(s.allreduce_ms), median_of(s.serial_ms),
                                 median_of(s.priority_ms)}};
  for (const auto& point : s.sweep) {
    const std::uint64_t n = point.grad_bytes;
    rows.push_back({n, sweep_key(n, "layer"), sweep_key(n, "allreduce"), sweep_key(n, "serial"), sweep_key(n, "priority"),
                    median_of(point.layer_ms), median_of(point.allreduce_ms), median_of(point.serial_ms),
                    median_of(point.priority_ms)});
  }
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.bytes < b.bytes; });
  return rows;
}

// The share of the step's communication that running it beside the layers hid: what (c) saved
// against (a), over every all-reduce's time.
double hidden_share(const SweepRow& row, int layers) {
  const double comm_ms = layers * row.allreduce_ms;
  return comm_ms > 0 ? (row.serial_ms - row.priority_ms) / comm_ms : 0.0;
}

void sweep_metrics(SectionBuilder& section, const Measurements& m, const Prediction& pr) {
  for (std::size_t i = 0; i < m.step.sweep.size(); ++i) {
    const SweepPoint& point = m.step.sweep[i];
    const std::string size = format_bytes(point.grad_bytes);
    section.metric(measured(sweep_key(point.grad_bytes, "layer"), msg("one layer alone, {size}", arg("size", size)), "ms",
                            point.layer_ms))
        .metric(measured(sweep_key(point.grad_bytes, "allreduce"), msg("all-reduce alone, {size}", arg("size", size)),
                         "ms", point.allreduce_ms))
        .metric(measured(sweep_key(point.grad_bytes, "serial"), msg("(a) one stream, {size}", arg("size", size)), "ms",
                         point.serial_ms)
                    .with_prediction(i < pr.sweep.size() ? pr.sweep[i].serial_ms : 0.0))
        .metric(measured(sweep_key(point.grad_bytes, "priority"),
                         msg("(c) comm stream at priority, {size}", arg("size", size)), "ms", point.priority_ms)
                    .with_prediction(i < pr.sweep.size() ? pr.sweep[i].priority_ms : 0.0));
  }
}

void sweep_section(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& pr) {
  const std::vector<SweepRow> rows = sweep_rows(p, m);
  auto section = b.section("sweep", "where communication outgrows the compute it could hide");
  sweep_metrics(section, m, pr);
  std::vector<std::vector<Cell>> table;
  const SweepRow* crossover = nullptr;
  for (const auto& row : rows) {
    table.push_back({data_cell(format_bytes(row.bytes)), metric_cell(row.allreduce),
                     data_cell(fmt::format("{:.2f}x", row.layer_ms > 0 ? row.allreduce_ms / row.layer_ms : 0.0)),
                     metric_cell(row.serial), metric_cell(row.priority),
                     data_cell(fmt::format("{:.0f}%", 100.0 * hidden_share(row, p.layers)))});
    if (crossover == nullptr && row.allreduce_ms > row.layer_ms) crossover = &row;
  }
  section.table("sweep", {"gradient", "all-reduce", "vs layer", "(a)", "(c)", "hidden"}, table);
  if (crossover != nullptr) {
    section.fact("crossover", "all-reduce longer than a layer from", verbatim(format_bytes(crossover->bytes)),
                 msg("{allreduce} ms against {layer} ms: from here on (c) cannot hide it",
                     arg("allreduce", fmt::format("{:.3f}", crossover->allreduce_ms)),
                     arg("layer", fmt::format("{:.3f}", crossover->layer_ms))),
                 false);
  } else {
    section.fact("crossover", "all-reduce longer than a layer from", "no size measured",
                 msg("up to {size}, every all-reduce is shorter than a layer",
                     arg("size", format_bytes(rows.back().bytes))),
                 false);
  }
}

void try_next_lines(ReportBuilder& b) {
  b.try_next("cudalab multi-gpu --layer-us 20", "layers shorter than an all-reduce: overlap can hide less")
      .try_next("cudalab multi-gpu --grad-size 64MiB", "bigger gradients: the all-reduces dominate")
      .try_next("cudalab multi-gpu --layers 32", "a deeper model: the tail of (b) against (c) stays one all-reduce")
      .try_next("cudalab multi-gpu --ranks 2", "one process per GPU, as torchrun starts a training run")
      .try_next("cudalab multi-gpu --ranks 2 --transport socket",
                "the all-reduces over TCP sockets, as between nodes without InfiniBand")
      .try_next("cudalab multi-gpu --timeline", "one lane per GPU and stream: see where each all-reduce starts");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  const bool one_process = m.processes.world_size <= 1;
  ReportBuilder b(flags().params(p));
  b.resolve_param("gpus", std::to_string(m.gpus.size()), p.gpus.has_value());
  b.resolve_param("ranks", one_process ? "none" : std::to_string(m.processes.world_size), true);
  std::vector<DeviceSummary> devices;
  for (const auto& g : m.gpus) devices.push_back(g.summary);
  b.devices(devices);

  if (one_process) {
    topology_section(b, m);
  } else {
    ranks_section(b, m);
  }
  if (copies_measured(m)) {
    peer_section(b, m, predicted);
    sm_copy_rows(b, m, predicted);
  }
  step_section(b, p, m, predicted);
  sweep_section(b, p, m, predicted);
  b.section("lecture", "what the lectures say about training on several GPUs");
  checks(b, m, predicted);

  const std::string serial = fmt::format("{:.2f}", median_of(m.step.serial_ms));
  const std::string overlapped = fmt::format("{:.2f}", median_of(m.step.overlapped_ms));
  const std::string priority = fmt::format("{:.2f}", median_of(m.step.priority_ms));
  // The step's figures are what both shapes of the run measure, so a run of ranks and a run of
  // one process hold against each other.
  b.headline(copies_measured(m)
                 ? msg("peer {one_way} GB/s one way, {both} both; step {serial} -> {overlapped} -> {priority} ms",
                       arg("one_way", fmt::format("{:.0f}", median_of(bandwidths(m.copies.large_bytes, m.copies.large_ms)))),
                       arg("both", fmt::format("{:.0f}", median_of(bandwidths(2 * m.copies.large_bytes, m.copies.both_ms)))),
                       arg("serial", serial), arg("overlapped", overlapped), arg("priority", priority))
                 : msg("{ranks} ranks; step {serial} -> {overlapped} -> {priority} ms",
                       arg("ranks", m.processes.world_size), arg("serial", serial), arg("overlapped", overlapped),
                       arg("priority", priority)),
             {"step.overlapped", "step.priority"});
  try_next_lines(b);
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::multi_gpu
