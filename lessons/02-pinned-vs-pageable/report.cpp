#include "report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"

namespace cudalab::pinned {

namespace {

double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

std::vector<double> bandwidth_samples(double bytes, const std::vector<double>& ms) {
  std::vector<double> out;
  for (double t : ms) out.push_back(gbps(bytes, t));
  return out;
}

std::string bandwidth_key(MemoryKind kind, Direction d, std::uint64_t n) {
  return fmt::format("bw.{}.{}.{}", name_of(kind), name_of(d), format_bytes(n));
}

// "H2D", "D2H": data, the same in every language (a memory kind, name_of, is words).
std::string direction_text(Direction d) { return label_of(d); }

// The sweep as a picture: measured points per memory kind, the fitted t(n) = latency + n / bw
// drawn through them, and the half-bandwidth size of pinned memory as a point on its curve.
Plot sweep_plot(const Measurements& m, const Prediction& predicted, Direction d) {
  Plot plot{std::string("sweep.") + name_of(d),
            msg("{direction} bandwidth against copy size", arg("direction", direction_text(d))),
            "copy size", "B", "bandwidth", "GB/s", true, false, {}};
  const double lo = static_cast<double>(m.sizes.front()), hi = static_cast<double>(m.sizes.back());
  for (MemoryKind kind : m.kinds) {
    PlotSeries points{name_of(kind), {}, false};
    for (std::uint64_t n : m.sizes) points.points.push_back({static_cast<double>(n), bandwidth_key(kind, d, n), 0});
    plot.series.push_back(std::move(points));
  }
  for (MemoryKind kind : m.kinds) {
    const auto fit = predicted.fits.find({kind, d});
    if (fit == predicted.fits.end()) continue;
    PlotSeries curve{msg("{kind} model", arg("kind", name_of(kind))), {}, true};
    for (int i = 0; i <= 48; ++i) {
      const double n = lo * std::pow(hi / lo, i / 48.0);
      curve.points.push_back({n, "", n / fit->second.predicted_seconds(n) / 1e9});
    }
    plot.series.push_back(std::move(curve));
  }
  if (const auto pinned = predicted.fits.find({MemoryKind::pinned, d}); pinned != predicted.fits.end()) {
    const double half = pinned->second.half_bandwidth_bytes();
    if (half >= lo && half <= hi) {
      const std::string size = format_bytes(static_cast<std::uint64_t>(half));
      plot.series.push_back({msg("pinned half bandwidth at {size}", arg("size", size)),
                             {{half, "", pinned->second.bandwidth_Bps / 2e9}},
                             false});
    }
  }
  return plot;
}

void add_sweep(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  for (Direction d : m.directions) {
    auto s = b.section(std::string("bandwidth.") + name_of(d),
                       msg("{direction} bandwidth by size", arg("direction", direction_text(d))),
                       d == Direction::h2d ? "bandwidth" : "");
    for (MemoryKind kind : m.kinds) {
      for (std::size_t si = 0; si < m.sizes.size(); ++si) {
        const std::uint64_t n = m.sizes[si];
        s.metric(measured(bandwidth_key(kind, d, n),
                          msg("{size} {kind}", arg("size", fmt::format("{:>7}", format_bytes(n))),
                              arg("kind", name_of(kind))),
                          "GB/s", bandwidth_samples(static_cast<double>(n), m.copy_ms.at({kind, d}).at(si))));
      }
    }
    if (d == Direction::h2d && !m.headline_set_aside_ms.empty()) {
      // Shown, never mixed in: the headline's blocks taken through a passing slowdown.
      s.metric(set_aside("bw.headline_set_aside", "headline blocks set aside, taken again", "GB/s",
                         bandwidth_samples(static_cast<double>(m.probe), m.headline_set_aside_ms),
                         m.headline_blocks_set_aside));
    }
    if (m.sizes.size() >= 2) s.get().plots.push_back(sweep_plot(m, predicted, d));
  }
}

void add_model(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  if (predicted.fits.empty()) return;
  auto s = b.section("model", "model: t(n) = latency + n / bandwidth");
  if (m.pcie) {
    s.fact("link", "PCIe link",
           msg("Gen{generation} x{width}: {gbps} GB/s each way in theory", arg("generation", m.pcie->max_generation),
               arg("width", m.pcie->max_width), arg("gbps", fmt::format("{:.1f}", m.pcie->theoretical_gbps()))),
           "after line encoding; packet headers and flow control take a further share", false);
  }
  for (const auto& [key, fit] : predicted.fits) {
    const std::string id = fmt::format("{}.{}", name_of(key.first), name_of(key.second));
    const char* kind = name_of(key.first);
    const std::string direction = direction_text(key.second);
    Message note;
    if (m.pcie) {
      note = msg("{percent}% of the link",
                 arg("percent", fmt::format("{:.0f}", 100.0 * fit.bandwidth_Bps / 1e9 / m.pcie->theoretical_gbps())));
    }
    s.metric(derived("fit." + id + ".bandwidth",
                     msg("{kind} {direction} asymptotic bandwidth", arg("kind", kind), arg("direction", direction)),
                     "GB/s", fit.bandwidth_Bps / 1e9)
                 .with_note(note))
        .metric(derived("fit." + id + ".latency",
                        msg("{kind} {direction} latency", arg("kind", kind), arg("direction", direction)), "us",
                        fit.latency_s * 1e6))
        .metric(derived("fit." + id + ".half_bandwidth",
                        msg("{kind} {direction} half-bandwidth size", arg("kind", kind), arg("direction", direction)),
                        "KiB", fit.half_bandwidth_bytes() / 1024.0)
                    .with_note("copies smaller than this are mostly latency"));
  }
}

void add_bidirectional(ReportBuilder& b, const Measurements& m) {
  if (m.bidirectional_ms.empty()) return;
  const double n = static_cast<double>(m.probe);
  const auto aggregate = bandwidth_samples(2.0 * n, m.bidirectional_ms);
  const double h2d = gbps(n, m.probe_ms(MemoryKind::pinned, Direction::h2d));
  const double one_way_sum = h2d + gbps(n, m.probe_ms(MemoryKind::pinned, Direction::d2h));
  b.section("bidirectional",
            msg("both directions at once ({size} pinned, two streams)", arg("size", format_bytes(m.probe))))
      .metric(measured("bidirectional.aggregate", "aggregate H2D + D2H", "GB/s", aggregate)
                  .with_note(msg("{ratio}× one direction alone; {percent}% of H2D + D2H measured apart",
                                 arg("ratio", fmt::format("{:.2f}", median_of(aggregate) / h2d)),
                                 arg("percent", fmt::format("{:.0f}", 100.0 * median_of(aggregate) / one_way_sum)))));
}

void add_host_blocking(ReportBuilder& b, const Measurements& m) {
  auto s = b.section("host_blocking",
                     msg("host time inside cudaMemcpyAsync ({size})", arg("size", format_bytes(m.probe))));
  for (MemoryKind kind : m.kinds) {
    for (Direction d : m.directions) {
      s.metric(measured(fmt::format("async_call.{}.{}", name_of(kind), name_of(d)),
                        msg("{kind} {direction} call returns after", arg("kind", name_of(kind)),
                            arg("direction", direction_text(d))),
                        "us", m.async_call_us.at({kind, d}))
                   .with_note(msg("the copy itself takes {ms} ms", arg("ms", format_number(m.probe_ms(kind, d))))));
    }
  }
}

// What registering costs and how many copies repay it; never, when pinned copies are not faster.
Message register_cost_text(double register_ms, double copies) {
  if (std::isinf(copies)) {
    return msg("{ms} ms, repaid after never: pinned copies are not faster here copies",
               arg("ms", format_number(register_ms)));
  }
  return msg("{ms} ms, repaid after {copies} copies", arg("ms", format_number(register_ms)),
             arg("copies", fmt::format("{:.0f}", copies)));
}

void add_pinning_cost(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  if (!m.allocation) return;
  auto s = b.section("pinning_cost", msg("the cost of pinning {size}", arg("size", format_bytes(m.probe))));
  s.metric(measured("alloc.malloc", "malloc + first touch", "ms", m.allocation->malloc_touch_ms)
               .with_note("the OS maps and zeroes each page as it is first written; includes the free"))
      .metric(measured("alloc.cudaMallocHost", "cudaMallocHost (+ cudaFreeHost)", "ms", m.allocation->pinned_ms)
                  .with_note("allocates, touches, locks and maps every page for DMA; includes the free"))
      .metric(measured("alloc.cudaHostRegister", "cudaHostRegister (+ unregister)", "ms", m.allocation->register_ms)
                  .with_note("locks and maps memory already touched: the cost of pinning alone"));
  if (!predicted.break_even) return;
  const BreakEven& be = *predicted.break_even;
  const std::string what = fmt::format("{} {}", label_of(be.direction), format_bytes(m.probe));
  s.metric(derived("alloc.break_even",
                   msg("{direction} copies before pinning pays ({size})",
                       arg("direction", direction_text(be.direction)), arg("size", format_bytes(m.probe))),
                   "copies", be.alloc_copies)
               .with_note(be.alloc_extra_ms > 0
                              ? msg("cudaMallocHost costs {extra} ms more than malloc + first touch; each pinned "
                                    "copy saves {saving} ms",
                                    arg("extra", format_number(be.alloc_extra_ms)),
                                    arg("saving", format_number(be.saving_ms)))
                              : msg("cudaMallocHost cost no more than malloc + first touch: it pays from the "
                                    "first copy, each saving {saving} ms",
                                    arg("saving", format_number(be.saving_ms)))));
  s.fact("register_break_even", msg("registering memory you have ({what})", arg("what", what)),
         register_cost_text(be.register_ms, be.register_copies),
         "cudaHostRegister on memory already touched: pinning's own cost", false);
}

// The lectures' claims about pinned memory (lectures 002 and 003), each beside this run's figure.
void add_lecture(ReportBuilder& b, const Measurements& m) {
  if (!(m.uses(MemoryKind::pinned) && m.uses(MemoryKind::pageable))) return;
  const Direction d = m.directions.front();
  const double n = static_cast<double>(m.probe);
  const double pinned_bw = gbps(n, m.probe_ms(MemoryKind::pinned, d));
  const double pageable_bw = gbps(n, m.probe_ms(MemoryKind::pageable, d));
  const double pageable_call_ms = median_of(m.async_call_us.at({MemoryKind::pageable, d})) * 1e-3;
  b.section("lecture", "lecture vs lab: what the lectures say about pinned memory")
      .fact("claim_dma", "lecture: pinned memory is faster (DMA reads it directly)", "no figure given",
            "lecture 003; lecture 002 ran on an NVIDIA L20 but printed no bandwidth")
      .metric(derived("lecture.pinned_speedup",
                      msg("pinned / pageable bandwidth, {direction} {size}", arg("direction", direction_text(d)),
                          arg("size", format_bytes(m.probe))),
                      "x", pinned_bw / pageable_bw)
                  .with_note(msg("{pinned} vs {pageable} GB/s", arg("pinned", fmt::format("{:.1f}", pinned_bw)),
                                 arg("pageable", fmt::format("{:.1f}", pageable_bw)))))
      .fact("claim_async", "lecture: cudaMemcpyAsync on pageable memory falls back to a synchronous copy",
            "no figure given", "lecture 003")
      .metric(derived("lecture.async_pageable_share", "pageable cudaMemcpyAsync: host blocked for", "%",
                      100.0 * pageable_call_ms / m.probe_ms(MemoryKind::pageable, d))
                  .with_note("of the copy's own time"));
}

}  // namespace

void add_checks(ReportBuilder& b, const Measurements& m);

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  if (p.size == 0) b.resolve_param("size", "sweep", true);
  add_sweep(b, m, predicted);
  add_model(b, m, predicted);
  add_bidirectional(b, m);
  add_host_blocking(b, m);
  add_pinning_cost(b, m, predicted);
  add_lecture(b, m);
  add_checks(b, m);
  const Direction d = m.directions.front();
  const double n = static_cast<double>(m.probe);
  if (m.uses(MemoryKind::pinned) && m.uses(MemoryKind::pageable)) {
    b.headline(msg("{direction} {size}: pinned {pinned} GB/s · pageable {pageable} GB/s",
                   arg("direction", direction_text(d)), arg("size", format_bytes(m.probe)),
                   arg("pinned", fmt::format("{:.1f}", gbps(n, m.probe_ms(MemoryKind::pinned, d)))),
                   arg("pageable", fmt::format("{:.1f}", gbps(n, m.probe_ms(MemoryKind::pageable, d))))),
               // compare holds a run to the pinned figure: pageable copies vary too much between runs
               {bandwidth_key(MemoryKind::pinned, d, m.probe)});
  } else {
    b.headline(msg("{kind} {direction} {size}: {gbps} GB/s", arg("kind", name_of(m.kinds.front())),
                   arg("direction", direction_text(d)), arg("size", format_bytes(m.probe)),
                   arg("gbps", fmt::format("{:.1f}", gbps(n, m.probe_ms(m.kinds.front(), d))))),
               {bandwidth_key(m.kinds.front(), d, m.probe)});
  }
  b.try_next("cudalab pinned-vs-pageable --size 16MiB --direction h2d", "one size, one direction: the headline alone")
      .try_next("cudalab pinned-vs-pageable --memory registered", "pin memory you already have")
      .try_next("cudalab pinned-vs-pageable --size 4KiB", "tiny copies: latency, not bandwidth")
      .try_next("cudalab 03", "now put the copy engines to work beside kernels");
  if (p.size == 0 && !p.full) b.try_next("cudalab pinned-vs-pageable --full", "the sweep on to 256MiB: does bandwidth stay flat?");
  b.timelines(m.timelines);
  return std::move(b).build();
}

void add_checks(ReportBuilder& b, const Measurements& m) {
  for (const auto& [key, t] : m.bytes) {
    Message what = m.sizes.size() == 1 ? Message("{kind} {direction} over {count} size")
                                       : Message("{kind} {direction} over {count} sizes");
    what.with(arg("kind", name_of(key.first))).with(arg("direction", direction_text(key.second)));
    what.with(arg("count", m.sizes.size()));
    b.verify(fmt::format("{}.{}", name_of(key.first), name_of(key.second)), t, Counted::bytes, what,
             "a wrong byte means a copy was cut short, landed at the wrong place, or read memory being rewritten");
  }
  if (!m.bidirectional_ms.empty()) {
    b.verify("bidirectional", m.bidirectional_bytes, Counted::bytes, "both directions at once");
  }
  if (!(m.uses(MemoryKind::pinned) && m.uses(MemoryKind::pageable))) return;
  const double n = static_cast<double>(m.probe);
  for (Direction d : m.directions) {
    const double pinned_bw = gbps(n, m.probe_ms(MemoryKind::pinned, d));
    const double pageable_bw = gbps(n, m.probe_ms(MemoryKind::pageable, d));
    const std::string key = fmt::format("pinned_beats_pageable.{}", name_of(d));
    b.expect(key, pinned_bw > kPinnedMinAdvantage * pageable_bw,
             msg("{direction} at {size}: pinned {pinned} GB/s vs pageable {pageable} GB/s ({ratio}×)",
                 arg("direction", direction_text(d)), arg("size", format_bytes(m.probe)),
                 arg("pinned", fmt::format("{:.1f}", pinned_bw)), arg("pageable", fmt::format("{:.1f}", pageable_bw)),
                 arg("ratio", fmt::format("{:.1f}", pinned_bw / pageable_bw))),
             "pageable copies are staged through a driver buffer by the CPU; a system with very fast host memory "
             "copies, or a copy too small to leave the latency regime, can narrow the gap")
        .headline_check(key);
  }
  const Direction d = m.directions.front();
  const double pageable_call_ms = median_of(m.async_call_us.at({MemoryKind::pageable, d})) * 1e-3;
  const double pinned_call_ms = median_of(m.async_call_us.at({MemoryKind::pinned, d})) * 1e-3;
  b.expect("async_on_pageable_blocks_host",
           pageable_call_ms > kBlockingMinShareOfCopy * m.probe_ms(MemoryKind::pageable, d) &&
               pageable_call_ms > kBlockingOverPinned * pinned_call_ms,
           msg("cudaMemcpyAsync {direction}: pinned returns after {pinned} µs, pageable after {pageable} µs",
               arg("direction", direction_text(d)), arg("pinned", format_number(pinned_call_ms * 1e3)),
               arg("pageable", format_number(pageable_call_ms * 1e3))),
           "with pageable memory the driver must copy the data into its staging buffer before the call returns");
}

}  // namespace cudalab::pinned
