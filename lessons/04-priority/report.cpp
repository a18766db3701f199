#include "report.hpp"

#include <fmt/format.h>

#include "common/model/stats.hpp"
#include "common/report/builder.hpp"
#include "common/report/text_format.hpp"
#include "kernels.hpp"

namespace cudalab::priority {

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  // The default follows the device's range, so it is only stable when given.
  b.resolve_param("priority", std::to_string(m.requested), p.priority.has_value());

  b.section("range", "stream priorities on this device")
      .fact("least", "least urgent (default)", std::to_string(m.least), "every stream gets this unless asked otherwise",
            false)
      .fact("greatest", "most urgent", std::to_string(m.greatest), "lower number = higher priority", false)
      .fact("requested", "requested for the urgent stream", std::to_string(m.requested),
            p.priority ? "from --priority" : "the device's most urgent", p.priority.has_value())
      .fact("granted", "granted (cudaStreamGetPriority)", std::to_string(m.granted),
            m.granted == m.requested ? "as requested" : "clamped into the device's range: not an error", false);

  b.section("background", "the background load", "setup")
      .fact("blocks_per_sm", "background blocks per SM", std::to_string(m.blocks_per_sm),
            fmt::format("{} threads each: together they fill an SM", kBackgroundThreads), false)
      .fact("blocks", "background blocks", format_count(static_cast<std::size_t>(m.background_blocks)),
            fmt::format("{} SMs x {} per SM x {} waves", m.sm_count, m.blocks_per_sm, p.waves), false)
      .metric(measured("background.total", "background kernel, start to end", "us",
                       column(m.same, &BehindSample::background_us))
                  .with_note(fmt::format("{} waves of {} us blocks", p.waves, p.block_us)))
      .metric(measured("urgent.enqueue_offset", "urgent enqueued after background start", "us",
                       column(m.same, &BehindSample::enqueue_offset_us))
                  .with_note("the host waits until the first wave runs"));

  const double same_predicted = median_of(predicted.same_us);
  const double high_predicted = median_of(predicted.high_us);
  b.section("latency", "urgent kernel: enqueue to completion")
      .metric(measured("urgent.alone", "alone (idle GPU)", "us", m.alone_us).with_note("its own run time"))
      .metric(measured("urgent.same_priority", fmt::format("behind background, priority {}", m.least), "us",
                       column(m.same, &BehindSample::latency_us))
                  .with_prediction(same_predicted)
                  .with_note("waits for every queued block"))
      .metric(measured("urgent.high_priority", fmt::format("behind background, priority {}", m.granted), "us",
                       column(m.high, &BehindSample::latency_us))
                  .with_prediction(high_predicted)
                  .with_note("waits for one resident block"))
      .table("cases", {"case", "measured (median)", "predicted"},
             {{text_cell("alone"), metric_cell("urgent.alone"), text_cell("-")},
              {text_cell("same priority"), metric_cell("urgent.same_priority"),
               text_cell(fmt::format("{:.1f} us", same_predicted))},
              {text_cell("high priority"), metric_cell("urgent.high_priority"),
               text_cell(fmt::format("{:.1f} us", high_predicted))}});

  b.section("limits", "what priority does not do");

  b.verify("background_results", m.background.all_correct(),
           fmt::format("background results match the CPU ({} of {} elements over every run)",
                       format_count(m.background.correct), format_count(m.background.checked)),
           "a wrong element means the kernel was cut short or wrote the wrong place");
  b.verify("urgent_results", m.urgent.all_correct(),
           fmt::format("urgent results match the CPU ({} of {} elements over every run)",
                       format_count(m.urgent.correct), format_count(m.urgent.checked)));
  const double same_median = median_of(column(m.same, &BehindSample::latency_us));
  const double high_median = median_of(column(m.high, &BehindSample::latency_us));
  b.expect("high_priority_at_most_half", high_median <= kHighPriorityMaxShare * same_median,
           "the high-priority stream cuts the urgent latency to at most half",
           fmt::format("needs a granted priority more urgent than {} and a background of several waves; with "
                       "MPS, MIG or another process on the GPU the scheduler sees other work too",
                       m.least));

  b.headline(fmt::format("urgent latency {:.0f} us -> {:.0f} us at priority {}", same_median, high_median, m.granted));
  b.try_next("cudalab priority --priority 0", "the urgent stream at the default priority: no head start")
      .try_next("cudalab priority --priority -100", "out of range: see what CUDA grants")
      .try_next("cudalab priority --block-us 1000", "longer resident blocks: the high-priority wait grows with them")
      .try_next("cudalab priority --waves 80", "a longer queue: only the same-priority case pays for it")
      .try_next("cudalab priority --urgent-blocks 1024", "an urgent kernel wider than one freed slot");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::priority
