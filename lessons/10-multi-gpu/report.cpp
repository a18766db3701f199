#include "report.hpp"

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

void topology_section(ReportBuilder& b, const Measurements& m) {
  auto section = b.section("topology", "the GPUs and what links them");
  section.fact("gpus", "GPUs used", std::to_string(m.gpus.size()), fmt::format("of {} visible", m.visible_gpus), false);
  for (const auto& g : m.gpus) {
    section.fact(fmt::format("gpu{}", g.summary.index), fmt::format("GPU {}", g.summary.index), g.summary.name,
                 fmt::format("{} SMs, {} copy engines, priorities {} to {}", g.summary.sm_count,
                             g.summary.copy_engines, g.least_priority, g.greatest_priority),
                 false);
  }
  std::vector<std::vector<Cell>> rows;
  for (const auto& link : m.links) {
    rows.push_back({text_cell(fmt::format("{} -> {}", link.from, link.to)), text_cell(link.can_access ? "yes" : "no"),
                    text_cell(std::to_string(link.performance_rank)), text_cell(link.native_atomics ? "yes" : "no")});
  }
  section.table("links", {"pair", "peer access", "performance rank", "native atomics"}, rows);
}

void peer_section(ReportBuilder& b, const Measurements& m, const Prediction& pr) {
  const PeerCopies& c = m.copies;
  b.section("peer", fmt::format("copies between GPU 0 and GPU 1, {} each", format_bytes(c.large_bytes)))
      .fact("peer_access", "peer access", c.peer_access ? "enabled both ways" : "not supported",
            c.peer_access ? "cudaDeviceEnablePeerAccess" : "cudaMemcpyPeerAsync is staged by the driver", false)
      .metric(measured("peer.latency", fmt::format("one way, {}", format_bytes(c.small_bytes)), "us",
                       [&] {
                         std::vector<double> us;
                         for (const double ms : c.small_ms) us.push_back(ms * 1000.0);
                         return us;
                       }())
                  .with_note("the fixed cost of one copy"))
      .metric(measured("peer.one_way", "one way, 0 -> 1", "GB/s", bandwidths(c.large_bytes, c.large_ms))
                  .with_note("cudaMemcpyPeerAsync"))
      .metric(measured("peer.mid", fmt::format("one way, {}", format_bytes(c.mid_bytes)), "ms", c.mid_ms)
                  .with_prediction(pr.mid_copy_ms)
                  .with_note("predicted: latency + bytes / bandwidth"))
      .metric(measured("peer.both_ways", "both ways at once, total", "GB/s", bandwidths(2 * c.large_bytes, c.both_ms))
                  .with_prediction(gigabytes_per_s(2 * c.large_bytes, pr.both_ways_ms))
                  .with_note("predicted: each direction at its one-way speed"))
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

void step_section(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& pr) {
  const TrainingStep& s = m.step;
  b.section("step", fmt::format("a training step: {} layers, {} of gradients each, on {} GPUs", p.layers,
                                format_bytes(p.grad_size), m.gpus.size()))
      .fact("nccl", "NCCL", nccl_version_text(s.nccl_version), "libnccl.so.2, loaded at run time", false)
      .fact("layer_blocks", "blocks per layer kernel", format_count(static_cast<std::size_t>(s.layer_blocks)),
            fmt::format("whole waves of {} us blocks", kLayerBlockUs), false)
      .fact("priorities", "stream priorities", fmt::format("compute {}, comm in (c) {}", s.compute_priority, s.comm_priority),
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
      .metric(measured("step.priority", fmt::format("(c) comm stream, priority {}", s.comm_priority), "ms", s.priority_ms)
                  .with_prediction(pr.priority_ms)
                  .with_note("each all-reduce starts as its layer ends"))
      .table("variants", {"variant", "measured (median)", "predicted"},
             {{text_cell("(a) one stream"), metric_cell("step.serial"), text_cell(fmt::format("{:.3f} ms", pr.serial_ms))},
              {text_cell("(b) comm stream"), metric_cell("step.overlapped"),
               text_cell(fmt::format("{:.3f} ms", pr.overlapped_ms))},
              {text_cell("(c) + priority"), metric_cell("step.priority"),
               text_cell(fmt::format("{:.3f} ms", pr.priority_ms))}});
}

void checks(ReportBuilder& b, const Measurements& m, const Prediction& pr) {
  const PeerCopies& c = m.copies;
  const TrainingStep& s = m.step;
  b.verify("copies", c.bytes, Counted::bytes, "every copy",
           "a wrong byte means a copy was cut short or landed in the wrong place");
  b.verify("gradients", s.gradients, "every GPU's summed gradients against the CPU's sum",
           "each GPU's gradient is a small whole number, so the float sum is exact in any order");
  const double one_way = median_of(bandwidths(c.large_bytes, c.large_ms));
  const double both = median_of(bandwidths(2 * c.large_bytes, c.both_ms));
  const double staged = median_of(bandwidths(c.large_bytes, c.staged_ms));
  b.expect("peer_beats_staged", one_way >= kPeerOverStagedMin * staged,
           fmt::format("a direct peer copy is at least {}x as fast as staging through host memory", kPeerOverStagedMin),
           "without peer access (PCIe switches that block it, some virtual machines) the driver stages the copy "
           "itself, and the two tie");
  b.depends_on({"peer.one_way", "peer.staged"});
  b.expect("both_ways", both >= kBothWaysMinGain * one_way,
           fmt::format("both directions at once carry at least {}x one direction", kBothWaysMinGain),
           "NVLink and PCIe are full duplex, but the copy engines may not drive both directions at full speed at "
           "once; a link shared with other traffic can fail this too");
  b.depends_on({"peer.one_way", "peer.both_ways"});
  const double a = median_of(s.serial_ms), bb = median_of(s.overlapped_ms), cc = median_of(s.priority_ms);
  b.expect("overlap_beats_serial", bb <= kOverlapMaxShare * a,
           fmt::format("(b) takes at most {:.0f}% of (a): the all-reduces hide behind the layers", kOverlapMaxShare * 100),
           "needs layers long enough to hide an all-reduce (--layer-us) and SMs to spare for NCCL's kernels");
  b.depends_on({"step.serial", "step.overlapped"});
  b.expect("priority_helps", cc <= kPriorityMaxShare * bb,
           fmt::format("(c) takes at most {:.0f}% of (b): priority lets each all-reduce start as its layer ends",
                       kPriorityMaxShare * 100),
           "gains at most about one all-reduce; when the all-reduce is short against the step, noise can hide it");
  b.depends_on({"step.overlapped", "step.priority"});
  b.expect("serial_model", std::abs(a / pr.serial_ms - 1.0) <= kSerialModelTolerance,
           fmt::format("(a) is within {:.0f}% of its parts added up", kSerialModelTolerance * 100),
           "a gap means the layers or all-reduces ran at another speed inside the step than alone");
  b.depends_on({"step.serial", "step.layer", "step.allreduce"});
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  b.resolve_param("gpus", std::to_string(m.gpus.size()), p.gpus.has_value());
  std::vector<DeviceSummary> devices;
  for (const auto& g : m.gpus) devices.push_back(g.summary);
  b.devices(devices);

  topology_section(b, m);
  peer_section(b, m, predicted);
  step_section(b, p, m, predicted);
  b.section("lecture", "what the lectures say about training on several GPUs");
  checks(b, m, predicted);

  b.headline(fmt::format("peer {:.0f} GB/s one way, {:.0f} both; step {:.2f} -> {:.2f} -> {:.2f} ms",
                         median_of(bandwidths(m.copies.large_bytes, m.copies.large_ms)),
                         median_of(bandwidths(2 * m.copies.large_bytes, m.copies.both_ms)),
                         median_of(m.step.serial_ms), median_of(m.step.overlapped_ms), median_of(m.step.priority_ms)),
             {"peer.one_way", "step.overlapped"});
  b.try_next("cudalab multi-gpu --layer-us 20", "layers shorter than an all-reduce: overlap can hide less")
      .try_next("cudalab multi-gpu --grad-size 64MiB", "bigger gradients: the all-reduces dominate")
      .try_next("cudalab multi-gpu --layers 32", "a deeper model: the tail of (b) against (c) stays one all-reduce")
      .try_next("cudalab multi-gpu --gpus 2", "fewer GPUs: a cheaper all-reduce")
      .try_next("cudalab multi-gpu --timeline", "one lane per GPU and stream: see where each all-reduce starts");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::multi_gpu
