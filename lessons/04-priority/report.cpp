#include "report.hpp"

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "common/report/named_figures.hpp"
#include "kernel_shapes.hpp"

namespace cudalab::priority {

namespace {

// A priority range, least to greatest: "0 to -5".
Message range_text(int least, int greatest) {
  return msg("{least} to {greatest}", arg("least", least), arg("greatest", greatest));
}

// The lecture's demo, as it ran it and with the priorities swapped, each claim beside this run.
void lecture_section(ReportBuilder& b, const Measurements& m, const Prediction& predicted) {
  const double work_ratio = median_of(m.lecture_long_alone_ms) / median_of(m.lecture_short_alone_ms);
  const double given_short = median_of(column(m.lecture_as_given, &LectureSample::short_ms));
  const double given_long = median_of(column(m.lecture_as_given, &LectureSample::long_ms));
  const double swapped_short = median_of(column(m.lecture_swapped, &LectureSample::short_ms));
  const double swapped_long = median_of(column(m.lecture_swapped, &LectureSample::long_ms));
  b.section("lecture", "the lecture's priority demo (2000 then 1000 iterations of sin + cos), and this run")
      .metric(measured("lecture.short_alone", "1000 iterations, alone", "ms", m.lecture_short_alone_ms))
      .metric(measured("lecture.long_alone", "2000 iterations, alone", "ms", m.lecture_long_alone_ms))
      .metric(derived("lecture.work_ratio", "alone: 2000 / 1000 iterations", "x", work_ratio)
                  .with_note("the work differs 2x, priority or not"))
      .metric(measured("lecture.given.short",
                       msg("as lectured: {iterations} its, priority {priority}", arg("iterations", 1000),
                           arg("priority", m.greatest)),
                       "ms",
                       column(m.lecture_as_given, &LectureSample::short_ms))
                  .with_prediction(predicted.lecture_as_given.short_ms))
      .metric(measured("lecture.given.long",
                       msg("as lectured: {iterations} its, priority {priority}", arg("iterations", 2000),
                           arg("priority", m.least)),
                       "ms",
                       column(m.lecture_as_given, &LectureSample::long_ms))
                  .with_prediction(predicted.lecture_as_given.long_ms))
      .metric(derived("lecture.given.ratio", "as lectured: low / high priority stream", "x", given_long / given_short))
      .metric(measured("lecture.swapped.short",
                       msg("swapped: {iterations} its, priority {priority}", arg("iterations", 1000),
                           arg("priority", m.least)),
                       "ms",
                       column(m.lecture_swapped, &LectureSample::short_ms))
                  .with_prediction(predicted.lecture_swapped.short_ms))
      .metric(measured("lecture.swapped.long",
                       msg("swapped: {iterations} its, priority {priority}", arg("iterations", 2000),
                           arg("priority", m.greatest)),
                       "ms",
                       column(m.lecture_swapped, &LectureSample::long_ms))
                  .with_prediction(predicted.lecture_swapped.long_ms))
      .metric(derived("lecture.swapped.ratio", "swapped: low / high priority stream", "x", swapped_short / swapped_long))
      .table("claims", {"the lecture says (lectures 002, 003)", "lecture (NVIDIA L20)", "this run"},
             {{text_cell("priority range, least to greatest"), text_cell(range_text(0, -5)),
               text_cell(range_text(m.least, m.greatest))},
              {text_cell("high-priority stream (1000 its)"), data_cell(named_figure_text("lecture002.high_priority")), metric_cell("lecture.given.short")},
              {text_cell("low-priority stream (2000 its)"), data_cell(named_figure_text("lecture002.low_priority")), metric_cell("lecture.given.long")},
              {text_cell("low / high"), data_cell(fmt::format("{:.2f}x", named_figure_value("lecture002.low_priority") /
                                                                named_figure_value("lecture002.high_priority"))), metric_cell("lecture.given.ratio")},
              {text_cell("(not run) the two kernels alone"), data_cell("-"), metric_cell("lecture.work_ratio")},
              {text_cell("(not run) priorities swapped: low / high"), data_cell("-"),
               metric_cell("lecture.swapped.ratio")},
              {text_cell("high priority pre-empts (lecture 003)"), text_cell("no figure"),
               metric_cell("urgent.high_priority")}});
}

void lecture_checks(ReportBuilder& b, const Measurements& m) {
  const double work_ratio = median_of(m.lecture_long_alone_ms) / median_of(m.lecture_short_alone_ms);
  const double given_short = median_of(column(m.lecture_as_given, &LectureSample::short_ms));
  const double swapped_short = median_of(column(m.lecture_swapped, &LectureSample::short_ms));
  b.verify("lecture_results", m.lecture_results, "the lecture's kernels against the CPU",
           "a NaN or a value off by more than 1e-5 means an element was not computed or computed wrongly");
  b.expect("lecture_work_ratio_is_two", work_ratio >= kWorkRatioMin && work_ratio <= kWorkRatioMax,
           msg("alone, the lecture's kernels take {ratio}x as long for 2x the iterations",
               arg("ratio", fmt::format("{:.2f}", work_ratio))),
           "the iteration count sets each kernel's time; a GPU busy with other work can skew one of them");
  b.expect("priority_moves_the_short_kernel", given_short <= kPriorityShortMaxShare * swapped_short,
           msg("the 1000-iteration kernel: {urgent} ms on the urgent stream, {other} ms on the other",
               arg("urgent", fmt::format("{:.2f}", given_short)), arg("other", fmt::format("{:.2f}", swapped_short))),
           "needs a device with more than one priority level and kernels that queue more blocks than fit at once");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  // The default follows the device's range, so it is only stable when given.
  b.resolve_param("priority", std::to_string(m.requested), p.priority.has_value());

  b.section("range", "stream priorities on this device")
      .fact("least", "least urgent (default)", verbatim(std::to_string(m.least)),
            "every stream gets this unless asked otherwise", false)
      .fact("greatest", "most urgent", verbatim(std::to_string(m.greatest)), "lower number = higher priority", false)
      .fact("requested", "requested for the urgent stream", verbatim(std::to_string(m.requested)),
            p.priority ? "from --priority" : "the device's most urgent", p.priority.has_value())
      .fact("granted", "granted (cudaStreamGetPriority)", verbatim(std::to_string(m.granted)),
            m.granted == m.requested ? "as requested" : "clamped into the device's range: not an error", false);

  b.section("background", "the background load", "setup")
      .fact("blocks_per_sm", "background blocks per SM", verbatim(std::to_string(m.blocks_per_sm)),
            msg("{threads} threads each: together they fill an SM", arg("threads", kBackgroundThreads)), false)
      .fact("blocks", "background blocks", verbatim(format_count(static_cast<std::size_t>(m.background_blocks))),
            msg("{sms} SMs x {per_sm} per SM x {waves} waves", arg("sms", m.sm_count),
                arg("per_sm", m.blocks_per_sm), arg("waves", p.waves)),
            false)
      .metric(measured("background.total", "background kernel, start to end", "us",
                       column(m.same, &BehindSample::background_us))
                  .with_note(msg("{waves} waves of {block_us} us blocks", arg("waves", p.waves),
                                 arg("block_us", p.block_us))))
      .metric(measured("urgent.enqueue_offset", "urgent enqueued after background start", "us",
                       column(m.same, &BehindSample::enqueue_offset_us))
                  .with_note("the host waits until the first wave runs"));

  const double same_predicted = median_of(predicted.same_us);
  const double high_predicted = median_of(predicted.high_us);
  b.section("latency", "urgent kernel: enqueue to completion")
      .metric(measured("urgent.alone", "alone (idle GPU)", "us", m.alone_us).with_note("its own run time"))
      .metric(measured("urgent.same_priority",
                       msg("behind background, priority {priority}", arg("priority", m.least)), "us",
                       column(m.same, &BehindSample::latency_us))
                  .with_prediction(same_predicted)
                  .with_note("waits for every queued block"))
      .metric(measured("urgent.high_priority",
                       msg("behind background, priority {priority}", arg("priority", m.granted)), "us",
                       column(m.high, &BehindSample::latency_us))
                  .with_prediction(high_predicted)
                  .with_note("waits for one resident block"))
      .table("cases", {"case", "measured (median)", "predicted"},
             {{text_cell("alone"), metric_cell("urgent.alone"), data_cell("-")},
              {text_cell("same priority"), metric_cell("urgent.same_priority"),
               data_cell(fmt::format("{:.1f} us", same_predicted))},
              {text_cell("high priority"), metric_cell("urgent.high_priority"),
               data_cell(fmt::format("{:.1f} us", high_predicted))}});

  b.section("limits", "what priority does not do");
  lecture_section(b, m, predicted);

  b.verify("background_results", m.background, "background results over every run",
           "a wrong element means the kernel was cut short or wrote the wrong place");
  b.verify("urgent_results", m.urgent, "urgent results over every run");
  const double same_median = median_of(column(m.same, &BehindSample::latency_us));
  const double high_median = median_of(column(m.high, &BehindSample::latency_us));
  b.expect("high_priority_at_most_half", high_median <= kHighPriorityMaxShare * same_median,
           "the high-priority stream cuts the urgent latency to at most half",
           msg("needs a granted priority more urgent than {least} and a background of several waves; with "
               "MPS, MIG or another process on the GPU the scheduler sees other work too",
               arg("least", m.least)))
      .headline_check("high_priority_at_most_half");
  lecture_checks(b, m);

  b.headline(msg("urgent latency {same} us -> {high} us at priority {priority}",
                 arg("same", fmt::format("{:.0f}", same_median)), arg("high", fmt::format("{:.0f}", high_median)),
                 arg("priority", m.granted)),
             {"urgent.same_priority", "urgent.high_priority"});
  b.try_next("cudalab priority --priority 0", "the urgent stream at the default priority: no head start")
      .try_next("cudalab priority --priority -100", "out of range: see what CUDA grants")
      .try_next("cudalab priority --block-us 1000", "longer resident blocks: the high-priority wait grows with them")
      .try_next("cudalab priority --waves 80", "a longer queue: only the same-priority case pays for it")
      .try_next("cudalab priority --urgent-blocks 1024", "an urgent kernel wider than one freed slot");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::priority
