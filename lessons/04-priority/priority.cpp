// Lesson 04: what a stream priority buys. A background kernel fills every SM for many waves of
// blocks of known duration; an urgent kernel is enqueued on another stream while it runs. We
// time the urgent kernel alone, behind the background at the same priority, and behind it at a
// higher priority, and compare with what the block scheduler predicts.
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "errors.hpp"
#include "lessons.hpp"
#include "mapped_memory.hpp"
#include "priority_kernels.hpp"
#include "priority_model.hpp"
#include "priority_options.hpp"
#include "text_format.hpp"
#include "traced_run.hpp"

namespace cudalab {

namespace {

using namespace priority;

// The longest a background can take to show its first block: far above any launch latency.
constexpr auto kStartTimeout = std::chrono::seconds(10);

struct Buffers {
  DeviceBuffer<std::uint32_t> background;
  DeviceBuffer<std::uint32_t> urgent;
  PinnedBuffer<int> started{1};  // set by the background's first block, polled by the host
};

// Counts elements that match and how many were checked, over every run.
struct Tally {
  std::size_t checked = 0;
  std::size_t correct = 0;
  void add(const DeviceBuffer<std::uint32_t>& buffer, std::uint32_t (*expected)(std::uint32_t)) {
    std::vector<std::uint32_t> host(buffer.size());
    CUDALAB_CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (host[i] == expected(static_cast<std::uint32_t>(i))) ++correct;
    }
    checked += host.size();
  }
  bool all_correct() const { return checked > 0 && checked == correct; }
};

std::uint32_t expected_background(std::uint32_t i) { return background_value(i); }
std::uint32_t expected_urgent(std::uint32_t i) { return urgent_value(i); }

// One run behind the background. Times come from CUDA events, all on the GPU's clock: the
// start event sits on the idle urgent stream, so the GPU stamps it the moment it arrives, i.e.
// at enqueue; the stop event fires when the urgent kernel has finished.
struct BehindSample {
  double latency_us = 0;         // urgent enqueue -> urgent done
  double enqueue_offset_us = 0;  // background start -> urgent enqueue
  double background_us = 0;      // background start -> background done
};

void wait_until_started(const PinnedBuffer<int>& started) {
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (*static_cast<volatile int*>(started.data()) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw RuntimeError("the background kernel did not start within 10 s");
    }
  }
}

double elapsed_us(const Event& from, const Event& to) {
  float ms = 0;
  CUDALAB_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return static_cast<double>(ms) * 1000.0;
}

void poison(const DeviceBuffer<std::uint32_t>& buffer, cudaStream_t stream) {
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0xFF, buffer.bytes(), stream));
}

double run_alone(const Stream& urgent_stream, Buffers& b, int urgent_blocks, Tally& urgent_tally) {
  poison(b.urgent, urgent_stream);
  urgent_stream.synchronize();
  Event enqueued, done;
  enqueued.record(urgent_stream);
  launch_urgent(urgent_stream, b.urgent.data(), urgent_blocks);
  done.record(urgent_stream);
  done.synchronize();
  urgent_tally.add(b.urgent, expected_urgent);
  return elapsed_us(enqueued, done);
}

// The tallies may be null: the traced run skips the read-back, which would otherwise stretch
// its picture by tens of milliseconds of copies and host checking.
BehindSample run_behind(const Stream& background_stream, const Stream& urgent_stream, Buffers& b,
                        const PriorityOptions& o, int background_blocks, Tally* background_tally,
                        Tally* urgent_tally) {
  // Poison the urgent output first and wait: a memset queued on the urgent stream behind the
  // background would itself wait for free SMs and spoil the timing.
  poison(b.urgent, urgent_stream);
  urgent_stream.synchronize();
  poison(b.background, background_stream);
  background_stream.synchronize();
  *static_cast<volatile int*>(b.started.data()) = 0;

  Event background_start, background_done, urgent_enqueued, urgent_done;
  background_start.record(background_stream);
  launch_background(background_stream, b.background.data(), background_blocks,
                    static_cast<std::uint64_t>(o.block_us) * 1000u, device_view(b.started));
  background_done.record(background_stream);
  wait_until_started(b.started);  // the first wave is resident: now the GPU is full
  urgent_enqueued.record(urgent_stream);
  launch_urgent(urgent_stream, b.urgent.data(), o.urgent_blocks);
  urgent_done.record(urgent_stream);
  background_done.synchronize();
  urgent_done.synchronize();

  if (background_tally != nullptr) background_tally->add(b.background, expected_background);
  if (urgent_tally != nullptr) urgent_tally->add(b.urgent, expected_urgent);
  return BehindSample{elapsed_us(urgent_enqueued, urgent_done), elapsed_us(background_start, urgent_enqueued),
                      elapsed_us(background_start, background_done)};
}

struct CaseResult {
  std::vector<double> latency_us;
  std::vector<double> predicted_us;
  std::vector<double> offset_us;
  std::vector<double> background_us;
};

class Priority final : public Lesson {
 public:
  void add_options(CLI::App& app) override { add_priority_options(app, options_); }
  Repetitions default_repetitions() const override { return {2, 15}; }

  Report run(const RunContext& ctx) override {
    const PriorityOptions& o = options_;
    int least = 0, greatest = 0;
    CUDALAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    int sm_count = 0;
    CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, ctx.device));
    const int requested = o.priority_given ? o.priority : greatest;

    const Stream background_stream(cudaStreamNonBlocking, least);
    const Stream same_stream(cudaStreamNonBlocking, least);
    const Stream urgent_stream(cudaStreamNonBlocking, requested);
    const int granted = urgent_stream.priority();  // CUDA clamps into [greatest, least]

    const int blocks_per_sm = background_blocks_per_sm();
    if (blocks_per_sm <= 0) throw WaivedError("the background kernel cannot run on this device");
    const int background_blocks = background_block_count(sm_count, blocks_per_sm, o.waves);

    Buffers b{DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(background_blocks) * kBackgroundThreads),
              DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(o.urgent_blocks) * kUrgentThreads)};
    Tally background_tally, urgent_tally;

    const std::vector<double> alone_us =
        repeat_measurement(ctx.reps, [&] { return run_alone(same_stream, b, o.urgent_blocks, urgent_tally); });
    const double alone_median = summarize(alone_us).median;

    auto measure_case = [&](const Stream& stream, bool high) {
      CaseResult c;
      const auto latencies = repeat_measurement(ctx.reps, [&] {
        const BehindSample s = run_behind(background_stream, stream, b, o, background_blocks, &background_tally,
                                          &urgent_tally);
        c.offset_us.push_back(s.enqueue_offset_us);
        c.background_us.push_back(s.background_us);
        c.predicted_us.push_back(
            high ? predict_high_priority_latency_us(s.background_us, o.waves, s.enqueue_offset_us, alone_median)
                 : predict_same_priority_latency_us(s.background_us, s.enqueue_offset_us, alone_median));
        return s.latency_us;
      });
      // Keep only the timed runs' side measurements (the warm-up ones came first).
      const auto warmups = static_cast<std::ptrdiff_t>(ctx.reps.warmup);
      for (auto* v : {&c.offset_us, &c.background_us, &c.predicted_us}) v->erase(v->begin(), v->begin() + warmups);
      c.latency_us = latencies;
      return c;
    };
    const CaseResult same = measure_case(same_stream, false);
    const CaseResult high = measure_case(urgent_stream, true);

    Report r = build_report(o, least, greatest, requested, granted, sm_count, blocks_per_sm, background_blocks,
                            alone_us, same, high, background_tally, urgent_tally);
    if (ctx.tracing()) {
      // One more run of each case, untimed, for the picture; the timed runs checked the results.
      auto trace_case = [&](const Stream& stream, const std::string& title) {
        traced_run(r.timelines, title, {{background_stream, "background"}, {stream, "urgent"}}, [&](TraceSession&) {
          (void)run_behind(background_stream, stream, b, o, background_blocks, nullptr, nullptr);
        });
      };
      trace_case(same_stream, "urgent kernel at the background's priority: it waits for the last wave");
      trace_case(urgent_stream, fmt::format("urgent kernel at priority {}: it runs as soon as SMs free up", granted));
    }
    return r;
  }

 private:
  Report build_report(const PriorityOptions& o, int least, int greatest, int requested, int granted, int sm_count,
                      int blocks_per_sm, int background_blocks, const std::vector<double>& alone_us,
                      const CaseResult& same, const CaseResult& high, const Tally& background_tally,
                      const Tally& urgent_tally) const {
    Report r;
    r.params = {
        {"waves", std::to_string(o.waves), true},
        {"block-us", std::to_string(o.block_us), true},
        {"urgent-blocks", std::to_string(o.urgent_blocks), true},
        // The default follows the device's range, so it is only stable when given.
        {"priority", o.priority_given ? std::to_string(o.priority) : std::to_string(greatest), o.priority_given},
    };

    Section range;
    range.key = "range";
    range.title = "stream priorities on this device";
    range.notes_key = "range";
    range.facts = {
        {"least", "least urgent (default)", std::to_string(least), "every stream gets this unless asked otherwise", false},
        {"greatest", "most urgent", std::to_string(greatest), "lower number = higher priority", false},
        {"requested", "requested for the urgent stream", std::to_string(requested),
         o.priority_given ? "from --priority" : "the device's most urgent", o.priority_given},
        {"granted", "granted (cudaStreamGetPriority)", std::to_string(granted),
         granted == requested ? "as requested" : "clamped into the device's range: not an error", false},
    };
    r.sections.push_back(std::move(range));

    Section setup;
    setup.key = "background";
    setup.title = "the background load";
    setup.notes_key = "setup";
    setup.facts = {
        {"blocks_per_sm", "background blocks per SM", std::to_string(blocks_per_sm),
         fmt::format("{} threads each: together they fill an SM", kBackgroundThreads), false},
        {"blocks", "background blocks", format_count(static_cast<std::size_t>(background_blocks)),
         fmt::format("{} SMs x {} per SM x {} waves", sm_count, blocks_per_sm, o.waves), false},
    };
    setup.metrics.push_back(Metric{"background.total", "background kernel, start to end", "us", same.background_us, {},
                                   fmt::format("{} waves of {} us blocks", o.waves, o.block_us)});
    setup.metrics.push_back(Metric{"urgent.enqueue_offset", "urgent enqueued after background start", "us",
                                   same.offset_us, {}, "the host waits until the first wave runs"});
    r.sections.push_back(std::move(setup));

    Section latency;
    latency.key = "latency";
    latency.title = "urgent kernel: enqueue to completion";
    latency.notes_key = "latency";
    latency.metrics.push_back(Metric{"urgent.alone", "alone (idle GPU)", "us", alone_us, {}, "its own run time"});
    Metric same_metric{"urgent.same_priority", fmt::format("behind background, priority {}", least), "us",
                       same.latency_us, summarize(same.predicted_us).median, "waits for every queued block"};
    Metric high_metric{"urgent.high_priority", fmt::format("behind background, priority {}", granted), "us",
                       high.latency_us, summarize(high.predicted_us).median, "waits for one resident block"};
    latency.metrics.push_back(same_metric);
    latency.metrics.push_back(high_metric);
    Table table;
    table.key = "cases";
    table.columns = {"case", "measured (median)", "predicted"};
    table.rows = {
        {Cell{"alone", ""}, Cell{"", "urgent.alone"}, Cell{"-", ""}},
        {Cell{"same priority", ""}, Cell{"", "urgent.same_priority"},
         Cell{fmt::format("{:.1f} us", *same_metric.predicted), ""}},
        {Cell{"high priority", ""}, Cell{"", "urgent.high_priority"},
         Cell{fmt::format("{:.1f} us", *high_metric.predicted), ""}},
    };
    latency.tables.push_back(std::move(table));
    r.sections.push_back(std::move(latency));

    Section limits;
    limits.key = "limits";
    limits.title = "what priority does not do";
    limits.notes_key = "limits";
    r.sections.push_back(std::move(limits));

    r.checks.push_back(verify_check(
        "background_results", background_tally.all_correct(),
        fmt::format("background results match the CPU ({} of {} elements over every run)",
                    format_count(background_tally.correct), format_count(background_tally.checked)),
        "a wrong element means the kernel was cut short or wrote the wrong place"));
    r.checks.push_back(verify_check(
        "urgent_results", urgent_tally.all_correct(),
        fmt::format("urgent results match the CPU ({} of {} elements over every run)",
                    format_count(urgent_tally.correct), format_count(urgent_tally.checked))));
    const double same_median = summarize(same.latency_us).median;
    const double high_median = summarize(high.latency_us).median;
    r.checks.push_back(expect_check(
        "high_priority_at_most_half", high_median <= 0.5 * same_median,
        "the high-priority stream cuts the urgent latency to at most half",
        fmt::format("needs a granted priority more urgent than {} and a background of several waves; with "
                    "MPS, MIG or another process on the GPU the scheduler sees other work too",
                    least)));

    r.headline = fmt::format("urgent latency {:.0f} us -> {:.0f} us at priority {}", same_median, high_median, granted);
    r.try_next = {
        {"cudalab priority --priority 0", "the urgent stream at the default priority: no head start"},
        {"cudalab priority --priority -100", "out of range: see what CUDA grants"},
        {"cudalab priority --block-us 1000", "longer resident blocks: the high-priority wait grows with them"},
        {"cudalab priority --waves 80", "a longer queue: only the same-priority case pays for it"},
        {"cudalab priority --urgent-blocks 1024", "an urgent kernel wider than one freed slot"},
    };
    return r;
  }

  PriorityOptions options_;
};

}  // namespace

std::unique_ptr<Lesson> make_priority() { return std::make_unique<Priority>(); }

}  // namespace cudalab
