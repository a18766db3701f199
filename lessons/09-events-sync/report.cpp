#include "report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/core/repetitions.hpp"
#include "common/core/stats.hpp"
#include "common/report/builder.hpp"
#include "common/core/text_format.hpp"
#include "common/report/named_figures.hpp"

namespace cudalab::events_sync {

namespace {

double median_wake(const WaitRow& r) { return median_of(column(r.samples, &WaitSample::wake_us)); }
double median_cpu(const WaitRow& r) { return median_of(column(r.samples, &WaitSample::cpu_us)); }
double cpu_share(const WaitRow& r) {
  const double wall = median_of(column(r.samples, &WaitSample::wall_us));
  return wall > 0 ? median_cpu(r) / wall : 0.0;
}

void timing_section(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  b.section("timing", msg("one kernel of {kernel_us} us, timed four ways", arg("kernel_us", p.kernel_us)))
      .metric(measured("timing.host_launch", "host clock around the launch", "us",
                       column(m.timing, &TimingSample::host_launch_us))
                  .with_note("measures the launch call, not the work"))
      .metric(measured("timing.event", "cudaEventElapsedTime around the kernel", "us",
                       column(m.timing, &TimingSample::event_us))
                  .with_prediction(predicted.event_us)
                  .with_note("predicted: the kernel's own %globaltimer span"))
      .metric(measured("timing.gpu_stamp", "the kernel's own %globaltimer span", "us",
                       column(m.timing, &TimingSample::gpu_stamp_us)))
      .metric(measured("timing.host_launch_sync", "host clock around launch + synchronize", "us",
                       column(m.timing, &TimingSample::host_launch_sync_us))
                  .with_note("the work plus launch and wake-up"));
  const bool held = std::all_of(m.records.begin(), m.records.end(), [](const RecordCostSample& s) { return s.stream_was_held; });
  b.section("records", msg("the cost of cudaEventRecord, per record ({records} records a sample)",
                             arg("records", p.records)))
      .fact("held", "the host enqueued every sample's records before the GPU reached them", held ? "yes" : "no",
            held ? "" : "the GPU figures then include waiting for the host", false)
      .metric(measured("records.host_timing", "host: timing event", "us", column(m.records, &RecordCostSample::host_timing_us)))
      .metric(measured("records.host_plain", "host: cudaEventDisableTiming", "us",
                       column(m.records, &RecordCostSample::host_plain_us)))
      .metric(measured("records.gpu_timing", "GPU: timing event", "us", column(m.records, &RecordCostSample::gpu_timing_us))
                  .with_note("writes a timestamp"))
      .metric(measured("records.gpu_plain", "GPU: cudaEventDisableTiming", "us",
                       column(m.records, &RecordCostSample::gpu_plain_us)));
}

// One wake-up and one CPU metric per row, and a table that puts them side by side.
void wait_rows(SectionBuilder& s, const std::vector<WaitRow>& rows, const std::vector<RowPrediction>& predicted) {
  std::vector<std::vector<Cell>> table;
  for (const auto& r : rows) {
    const std::string wake_key = fmt::format("wait.{}.wake", r.key);
    const std::string cpu_key = fmt::format("wait.{}.cpu", r.key);
    s.metric(measured(wake_key, msg("{way}: wake-up", arg("way", r.label)), "us", column(r.samples, &WaitSample::wake_us)));
    s.metric(measured(cpu_key, msg("{way}: CPU burned", arg("way", r.label)), "us", column(r.samples, &WaitSample::cpu_us))
                 .with_prediction(predicted_cpu_us(predicted, r.key)));
    table.push_back({text_cell(r.label), metric_cell(wake_key), metric_cell(cpu_key),
                     data_cell(fmt::format("{:.0f}%", 100.0 * cpu_share(r)))});
  }
  s.table("tradeoff", {"way to wait", "wake-up after the GPU", "CPU burned", "CPU share of the wait"}, table);
}

void wait_sections(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted) {
  auto waits = b.section("waits", msg("ways for the host to wait for a {kernel_us} us kernel", arg("kernel_us", p.kernel_us)));
  wait_rows(waits, m.waits, predicted.waits);
  auto sched = b.section("scheduling", "cudaStreamSynchronize under each device scheduling flag");
  sched.fact("flags_applied", "flags read back with cudaGetDeviceFlags", m.scheduling_flags_applied ? "yes" : "no");
  wait_rows(sched, m.scheduling, predicted.scheduling);
  b.section("gpu_wait", "stream B's kernel after stream A's: the GPU waits, or the host waits and launches")
      .metric(measured("chain.gpu_wait_gap", "cudaStreamWaitEvent: A's end -> B's start", "us",
                       column(m.chain, &ChainSample::gpu_wait_gap_us))
                  .with_note("no host thread involved"))
      .metric(measured("chain.gpu_wait_cpu", "host CPU to enqueue the wait and B's kernel", "us",
                       column(m.chain, &ChainSample::gpu_wait_enqueue_cpu_us)))
      .metric(measured("chain.host_wait_gap", "cudaStreamSynchronize(A), then launch B", "us",
                       column(m.chain, &ChainSample::host_wait_gap_us))
                  .with_prediction(predicted.host_chain_gap_us)
                  .with_note("predicted: wake-up + launch call, a lower bound"))
      .metric(measured("chain.host_wait_cpu", "host CPU burned in that synchronize", "us",
                       column(m.chain, &ChainSample::host_wait_cpu_us)));
}

// "998 of 1,000": how many of the checked elements were correct.
Message counted(const Tally& t) {
  return msg("{correct} of {checked}", arg("correct", format_count(t.correct)), arg("checked", format_count(t.checked)));
}

void dependency_section(ReportBuilder& b, const Params& p, const Measurements& m) {
  b.section("dependency", msg("a consumer stream reads what a producer stream writes ({elements} elements)",
                              arg("elements", format_count(static_cast<std::size_t>(p.elements)))))
      .fact("right", "record, then wait: correct elements", counted(m.right), {}, false)
      .fact("wrong", "wait, then record: correct elements", counted(m.wrong), {}, false)
      .fact("wrong_stale", "of the wrong ones, computed from the previous round's data",
            verbatim(format_count(m.wrong_stale)), {}, false);
}

// Each claim the lectures make about events and waiting, beside what this run measured.
void lecture_section(ReportBuilder& b) {
  b.section("lecture", "the lectures' claims about events and synchronization, and this run")
      .table("claims", {"lecture says", "lecture's figure", "this run"},
             {{text_cell("003: events time the GPU precisely, without the CPU's launch overhead"),
               text_cell("none"), metric_cell("timing.event")},
              {text_cell("003: a stream waiting on an event does not block the CPU"), text_cell("none"),
               metric_cell("chain.gpu_wait_cpu")},
              {text_cell("002: cudaStreamWaitEvent lets compute wait for a transfer (its program waits on event 0)"),
               text_cell(msg("{demo} for the demo, NVIDIA L20",
                             arg("demo", named_figure_text("lecture002.transfer_compute")))), metric_cell("chain.gpu_wait_gap")},
              {text_cell("003/004: cudaDeviceSynchronize makes the CPU wait for all streams"), text_cell("none"),
               metric_cell("wait.device_sync.cpu")},
              {text_cell("(not said) how a waiting thread waits: spin, yield or block"), text_cell("-"),
               metric_cell("wait.sched_blocking_sync.wake")}});
}

void timing_checks(ReportBuilder& b, const Measurements& m) {
  const double launch = median_of(column(m.timing, &TimingSample::host_launch_us));
  const double event = median_of(column(m.timing, &TimingSample::event_us));
  const double stamp = median_of(column(m.timing, &TimingSample::gpu_stamp_us));
  b.expect("host_clock_measures_the_launch", launch < kLaunchMaxShareOfKernel * event,
           msg("a host clock around the launch read {launch} us of a {kernel} us kernel",
               arg("launch", fmt::format("{:.1f}", launch)), arg("kernel", fmt::format("{:.1f}", event))),
           "with CUDA_LAUNCH_BLOCKING=1 every launch waits for its kernel, and the host clock reads the work");
  b.expect("events_measure_the_work", std::abs(event - stamp) <= kEventMatchShare * stamp + kEventMatchSlackUs,
           msg("events read {events} us, the kernel's own clock {clock} us", arg("events", fmt::format("{:.1f}", event)),
               arg("clock", fmt::format("{:.1f}", stamp))),
           "a busy GPU can start the kernel late after the start event; the events then include the wait");
  const double plain_gpu = median_of(column(m.records, &RecordCostSample::gpu_plain_us));
  const double timing_gpu = median_of(column(m.records, &RecordCostSample::gpu_timing_us));
  b.expect("plain_records_cheaper", plain_gpu < kPlainRecordMaxShare * timing_gpu,
           msg("a cudaEventDisableTiming record cost the GPU {plain} us, a timing one {timing} us",
               arg("plain", fmt::format("{:.2f}", plain_gpu)), arg("timing", fmt::format("{:.2f}", timing_gpu))),
           "a GPU that stamps time as cheaply as it signals would make the two equal; the host's cost per call "
           "is in the rows above");
}

void wait_checks(ReportBuilder& b, const Measurements& m) {
  std::vector<Message> burners;
  for (const auto& r : m.waits) {
    if (cpu_share(r) < kSpinMinCpuShare) burners.push_back(r.label);
  }
  b.expect("default_waits_spin", burners.empty(),
           "with the default flags every host-side wait kept its thread on a CPU for the whole wait",
           burners.empty() ? Message("auto picks yield when a process has more CUDA contexts than CPUs")
                           : msg("not: {ways}", arg("ways", join(burners, ", "))));
  const WaitRow& sync = find_row(m.waits, rows::kStreamSync);
  b.expect("spin_wakes_fast", median_wake(sync) < kSpinMaxWakeUs,
           msg("cudaStreamSynchronize returned {wake} us after the work was done",
               arg("wake", fmt::format("{:.1f}", median_wake(sync)))),
           "a loaded or power-saving host CPU wakes slower");
  const double gpu_gap = median_of(column(m.chain, &ChainSample::gpu_wait_gap_us));
  const double host_gap = median_of(column(m.chain, &ChainSample::host_wait_gap_us));
  b.expect("gpu_wait_is_shorter", gpu_gap < host_gap,
           msg("the GPU started B {gpu_gap} us after A, the host-side chain {host_gap} us",
               arg("gpu_gap", fmt::format("{:.1f}", gpu_gap)), arg("host_gap", fmt::format("{:.1f}", host_gap))),
           "the GPU resolves the event itself; the host path adds a wake-up and a launch");
  const double enqueue_cpu = median_of(column(m.chain, &ChainSample::gpu_wait_enqueue_cpu_us));
  const double host_cpu = median_of(column(m.chain, &ChainSample::host_wait_cpu_us));
  b.expect("gpu_wait_frees_the_host", enqueue_cpu < kGpuWaitMaxCpuShare * host_cpu,
           msg("the GPU-side wait cost the host {gpu_side} us of CPU, the host-side wait {host_side} us",
               arg("gpu_side", fmt::format("{:.1f}", enqueue_cpu)), arg("host_side", fmt::format("{:.1f}", host_cpu))),
           "with blocking-sync flags the host-side wait burns little CPU too, but still adds its wake-up");
}

void scheduling_checks(ReportBuilder& b, const Measurements& m) {
  b.expect("flags_took_effect", m.scheduling_flags_applied,
           "each scheduling flag read back from the live context after cudaSetDeviceFlags",
           "before CUDA 11 the flags could only be set before the context was created");
  const WaitRow& spin = find_row(m.scheduling, rows::kSpin);
  const WaitRow& blocking = find_row(m.scheduling, rows::kBlockingSync);
  const WaitRow& event = find_row(m.scheduling, rows::kBlockingEvent);
  b.expect("spin_burns_the_wait", cpu_share(spin) >= kSpinMinCpuShare,
           msg("spin: the thread was on a CPU for {share}% of its wait",
               arg("share", fmt::format("{:.0f}", 100.0 * cpu_share(spin)))));
  b.expect("blocking_sync_saves_cpu", cpu_share(blocking) <= kBlockingMaxCpuShare,
           msg("blocking-sync: {share}% of the wait on a CPU", arg("share", fmt::format("{:.0f}", 100.0 * cpu_share(blocking)))),
           "the thread sleeps until the driver's interrupt wakes it");
  b.expect("blocking_event_saves_cpu", cpu_share(event) <= kBlockingMaxCpuShare,
           msg("a cudaEventBlockingSync event, default flags: {share}% of the wait on a CPU",
               arg("share", fmt::format("{:.0f}", 100.0 * cpu_share(event)))),
           "the event's flag overrides the device's scheduling for cudaEventSynchronize");
  b.expect("blocking_costs_latency", median_wake(blocking) > median_wake(spin),
           msg("blocking-sync woke {blocking} us after the work, spin {spin} us",
               arg("blocking", fmt::format("{:.1f}", median_wake(blocking))),
               arg("spin", fmt::format("{:.1f}", median_wake(spin)))),
           "an interrupt and a thread wake-up cost more than noticing a flag in a spin loop");
}

void dependency_checks(ReportBuilder& b, const Measurements& m) {
  b.verify("dependency_done_right", m.right, "record, then wait: every consumer element against the CPU");
  b.expect("dependency_done_wrong_is_wrong", m.wrong.checked > 0 && m.wrong.correct < m.wrong.checked,
           msg("wait, then record: {wrong} of {checked} elements wrong ({stale} from the previous round's data)",
               arg("wrong", format_count(m.wrong.checked - m.wrong.correct)),
               arg("checked", format_count(m.wrong.checked)), arg("stale", format_count(m.wrong_stale))),
           "the teaching case: the wait saw the event's earlier, completed record and did not wait");
}

}  // namespace

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted) {
  ReportBuilder b(flags().params(p));
  timing_section(b, p, m, predicted);
  wait_sections(b, p, m, predicted);
  dependency_section(b, p, m);
  lecture_section(b);

  timing_checks(b, m);
  wait_checks(b, m);
  scheduling_checks(b, m);
  dependency_checks(b, m);

  const WaitRow& spin = find_row(m.scheduling, rows::kSpin);
  const WaitRow& blocking = find_row(m.scheduling, rows::kBlockingSync);
  b.headline(msg("spin wakes {spin_wake} us after the GPU at {spin_cpu}% CPU; blocking-sync {blocking_wake} us at "
                 "{blocking_cpu}% CPU",
                 arg("spin_wake", fmt::format("{:.1f}", median_wake(spin))),
                 arg("spin_cpu", fmt::format("{:.0f}", 100.0 * cpu_share(spin))),
                 arg("blocking_wake", fmt::format("{:.1f}", median_wake(blocking))),
                 arg("blocking_cpu", fmt::format("{:.0f}", 100.0 * cpu_share(blocking)))),
             {"timing.event", "wait.sched_spin.cpu"});
  b.try_next("cudalab events-sync --kernel-us 5000", "a longer wait: the CPU a spinning thread burns grows with it")
      .try_next("cudalab events-sync --kernel-us 20", "a short wait: the wake-up is now a large share of it")
      .try_next("cudalab events-sync --producer-us 0", "does the wrong dependency still give wrong results?")
      .try_next("CUDA_LAUNCH_BLOCKING=1 cudalab events-sync", "what do host clocks around a launch measure now?")
      .try_next("cudalab events-sync --timeline", "the consumer's kernel before or after the producer's");
  b.timelines(m.timelines);
  return std::move(b).build();
}

}  // namespace cudalab::events_sync
