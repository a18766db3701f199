// Lesson 09's experiments: what events time and what host clocks time; every way a host thread
// (or a stream) can wait for the GPU, with how late it wakes and how much CPU it burns; the
// device scheduling flags; and a cross-stream dependency through an event, right and wrong.
#include "measure.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/event_time.hpp"
#include "common/gpu/mapped_memory.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "model.hpp"

namespace cudalab::events_sync {

namespace {

constexpr auto kHostTimeout = std::chrono::seconds(10);
// The kernel that holds the stream while the host enqueues the records: a margin of four times
// the host's cost per record (about 1 us on the lab machine), so the GPU side is timed alone.
constexpr std::uint64_t kRecordHoldBaseNs = 200'000;
constexpr std::uint64_t kRecordHoldPerRecordNs = 4'000;
// Each dependency round checks every element twice on the CPU; a few rounds show the effect.
constexpr int kDependencyRounds = 5;

std::int64_t host_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// CPU time of the calling thread only: the watcher thread's spinning is not counted.
std::int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double us_between(std::int64_t from_ns, std::int64_t to_ns) { return static_cast<double>(to_ns - from_ns) / 1000.0; }

std::uint64_t ns_from_us(int us) { return static_cast<std::uint64_t>(us) * 1000; }

// --- timing: events against host clocks ------------------------------------------------------

TimingSample measure_timing(const Stream& s, const DeviceBuffer<std::int64_t>& stamps, int kernel_us) {
  Event start, stop;
  start.record(s);
  const auto t0 = host_now_ns();
  launch_stamped_spin(s, ns_from_us(kernel_us), stamps.data(), stamps.data() + 1, nullptr, 0);
  const auto t1 = host_now_ns();
  stop.record(s);
  s.synchronize();
  const auto t2 = host_now_ns();
  std::int64_t gpu[2];
  CUDALAB_CUDA_CHECK(cudaMemcpy(gpu, stamps.data(), sizeof(gpu), cudaMemcpyDeviceToHost));
  return TimingSample{us_between(t0, t1), us_between(t0, t2), elapsed_us(start, stop), us_between(gpu[0], gpu[1])};
}

struct RecordCost {
  double host_us = 0;
  double gpu_us = 0;
  bool held = true;
};

// A kernel holds the stream while the host enqueues `n` records, so the GPU then runs them back
// to back and the two timing events around them measure the GPU's side alone.
RecordCost time_records(const Stream& s, int n, unsigned event_flags) {
  std::vector<Event> events;
  events.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) events.emplace_back(event_flags);
  Event before, after;
  const std::uint64_t hold_ns = kRecordHoldBaseNs + kRecordHoldPerRecordNs * static_cast<std::uint64_t>(n);
  launch_stamped_spin(s, hold_ns, nullptr, nullptr, nullptr, 0);
  before.record(s);
  const auto t0 = host_now_ns();
  for (const auto& e : events) e.record(s);
  const auto t1 = host_now_ns();
  after.record(s);
  s.synchronize();
  return RecordCost{us_between(t0, t1) / n, elapsed_us(before, after) / n, t1 - t0 < static_cast<std::int64_t>(hold_ns)};
}

RecordCostSample measure_record_cost(const Stream& s, int n) {
  const RecordCost timing = time_records(s, n, cudaEventDefault);
  const RecordCost plain = time_records(s, n, cudaEventDisableTiming);
  return RecordCostSample{timing.host_us, plain.host_us, timing.gpu_us, plain.gpu_us, timing.held && plain.held};
}

// --- ways to wait ----------------------------------------------------------------------------

// A host thread that spins on the kernel's mapped flag and stamps the host clock when it flips:
// the moment the work was done, on the same clock as the waiter's. Joined on every path.
class DoneWatcher {
 public:
  DoneWatcher(const PinnedBuffer<std::uint32_t>& flag, std::uint32_t ticket)
      : thread_([this, flag_ptr = static_cast<volatile std::uint32_t*>(flag.data()), ticket] {
          running_.store(true);
          const auto deadline = std::chrono::steady_clock::now() + kHostTimeout;
          while (*flag_ptr != ticket && std::chrono::steady_clock::now() < deadline) {
          }
          seen_ns_.store(host_now_ns());
        }) {
    while (!running_.load()) std::this_thread::yield();
  }
  DoneWatcher(const DoneWatcher&) = delete;
  DoneWatcher& operator=(const DoneWatcher&) = delete;
  ~DoneWatcher() {
    if (thread_.joinable()) thread_.join();
  }
  std::int64_t seen_ns() {
    if (thread_.joinable()) thread_.join();
    return seen_ns_.load();
  }

 private:
  std::atomic<bool> running_{false};
  std::atomic<std::int64_t> seen_ns_{0};
  std::thread thread_;
};

using WaitFn = std::function<void(cudaStream_t, cudaEvent_t)>;

WaitSample timed_wait(const Stream& s, const PinnedBuffer<std::uint32_t>& flag, std::uint32_t ticket, int kernel_us,
                      unsigned event_flags, const WaitFn& wait) {
  Event done(event_flags);
  std::int64_t t0 = 0, t1 = 0, c0 = 0, c1 = 0;
  DoneWatcher watcher(flag, ticket);
  launch_stamped_spin(s, ns_from_us(kernel_us), nullptr, nullptr, device_view(flag), ticket);
  done.record(s);
  c0 = thread_cpu_ns();
  t0 = host_now_ns();
  wait(s, done);
  t1 = host_now_ns();
  c1 = thread_cpu_ns();
  const std::int64_t seen = watcher.seen_ns();
  return WaitSample{us_between(seen, t1), us_between(c0, c1), us_between(t0, t1)};
}

void poll_until_done(const std::function<cudaError_t()>& query) {
  for (;;) {
    const cudaError_t e = query();
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) CUDALAB_CUDA_CHECK(e);
  }
}

struct WaitMethod {
  const char* key;
  const char* label;
  unsigned event_flags;
  WaitFn wait;
};

const std::vector<WaitMethod>& wait_methods() {
  static const std::vector<WaitMethod> methods = {
      {rows::kStreamSync, "cudaStreamSynchronize", cudaEventDisableTiming,
       [](cudaStream_t s, cudaEvent_t) { CUDALAB_CUDA_CHECK(cudaStreamSynchronize(s)); }},
      {rows::kEventSync, "cudaEventSynchronize", cudaEventDisableTiming,
       [](cudaStream_t, cudaEvent_t e) { CUDALAB_CUDA_CHECK(cudaEventSynchronize(e)); }},
      {rows::kDeviceSync, "cudaDeviceSynchronize", cudaEventDisableTiming,
       [](cudaStream_t, cudaEvent_t) { CUDALAB_CUDA_CHECK(cudaDeviceSynchronize()); }},
      {rows::kStreamQuery, "cudaStreamQuery loop", cudaEventDisableTiming,
       [](cudaStream_t s, cudaEvent_t) { poll_until_done([s] { return cudaStreamQuery(s); }); }},
      {rows::kEventQuery, "cudaEventQuery loop", cudaEventDisableTiming,
       [](cudaStream_t, cudaEvent_t e) { poll_until_done([e] { return cudaEventQuery(e); }); }},
  };
  return methods;
}

WaitRow measure_wait_row(const Repetitions& reps, const Stream& s, const PinnedBuffer<std::uint32_t>& flag,
                         std::uint32_t& ticket, int kernel_us, const char* key, const char* label,
                         unsigned event_flags, const WaitFn& wait) {
  WaitRow row{key, label, {}};
  row.samples = repeat(reps, [&] { return timed_wait(s, flag, ++ticket, kernel_us, event_flags, wait); });
  return row;
}

// Sets the scheduling bits of the device flags for its lifetime. Since CUDA 11 the flags of an
// active primary context can be overwritten; the lesson reads them back to prove it took.
class ScheduleFlags {
 public:
  explicit ScheduleFlags(unsigned schedule) {
    CUDALAB_CUDA_CHECK(cudaGetDeviceFlags(&saved_));
    CUDALAB_CUDA_CHECK(cudaSetDeviceFlags((saved_ & ~cudaDeviceScheduleMask & kSettable) | schedule));
    unsigned now = 0;
    CUDALAB_CUDA_CHECK(cudaGetDeviceFlags(&now));
    applied_ = (now & cudaDeviceScheduleMask) == schedule;
  }
  ScheduleFlags(const ScheduleFlags&) = delete;
  ScheduleFlags& operator=(const ScheduleFlags&) = delete;
  ~ScheduleFlags() { CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDeviceFlags(saved_ & kSettable)); }
  bool applied() const { return applied_; }

 private:
  static constexpr unsigned kSettable = cudaDeviceScheduleMask | cudaDeviceMapHost | cudaDeviceLmemResizeToMax;
  unsigned saved_ = 0;
  bool applied_ = false;
};

void measure_waits(const Params& p, const Repetitions& reps, const Stream& s, Measurements& m) {
  PinnedBuffer<std::uint32_t> flag(1);
  flag[0] = 0;
  std::uint32_t ticket = 0;
  for (const auto& w : wait_methods()) {
    m.waits.push_back(measure_wait_row(reps, s, flag, ticket, p.kernel_us, w.key, w.label, w.event_flags, w.wait));
  }
  const WaitFn stream_sync = wait_methods().front().wait;
  const struct {
    const char* key;
    const char* label;
    unsigned schedule;
  } schedules[] = {{rows::kAuto, "cudaDeviceScheduleAuto (default)", cudaDeviceScheduleAuto},
                   {rows::kSpin, "cudaDeviceScheduleSpin", cudaDeviceScheduleSpin},
                   {rows::kYield, "cudaDeviceScheduleYield", cudaDeviceScheduleYield},
                   {rows::kBlockingSync, "cudaDeviceScheduleBlockingSync", cudaDeviceScheduleBlockingSync}};
  for (const auto& sched : schedules) {
    const ScheduleFlags set(sched.schedule);
    m.scheduling_flags_applied = m.scheduling_flags_applied && set.applied();
    m.scheduling.push_back(measure_wait_row(reps, s, flag, ticket, p.kernel_us, sched.key, sched.label,
                                            cudaEventDisableTiming, stream_sync));
  }
  m.scheduling.push_back(measure_wait_row(
      reps, s, flag, ticket, p.kernel_us, rows::kBlockingEvent, "cudaEventBlockingSync event (auto flags)",
      cudaEventBlockingSync | cudaEventDisableTiming,
      [](cudaStream_t, cudaEvent_t e) { CUDALAB_CUDA_CHECK(cudaEventSynchronize(e)); }));
}

// --- the GPU waits, not the host -------------------------------------------------------------

ChainSample measure_chain(const Stream& a, const Stream& b, const DeviceBuffer<std::int64_t>& stamps, int kernel_us) {
  const Event ready(cudaEventDisableTiming);
  launch_stamped_spin(a, ns_from_us(kernel_us), nullptr, stamps.data(), nullptr, 0);
  ready.record(a);
  const auto c0 = thread_cpu_ns();
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(b, ready.get(), 0));
  launch_stamped_spin(b, 0, stamps.data() + 1, nullptr, nullptr, 0);
  const auto c1 = thread_cpu_ns();
  b.synchronize();

  launch_stamped_spin(a, ns_from_us(kernel_us), nullptr, stamps.data() + 2, nullptr, 0);
  const auto c2 = thread_cpu_ns();
  a.synchronize();
  const auto c3 = thread_cpu_ns();
  launch_stamped_spin(b, 0, stamps.data() + 3, nullptr, nullptr, 0);
  b.synchronize();
  std::int64_t t[4];
  CUDALAB_CUDA_CHECK(cudaMemcpy(t, stamps.data(), sizeof(t), cudaMemcpyDeviceToHost));
  return ChainSample{us_between(t[0], t[1]), us_between(c0, c1), us_between(t[2], t[3]), us_between(c2, c3)};
}

// --- cross-stream dependency: right and wrong ------------------------------------------------

struct DependencyBuffers {
  DeviceBuffer<std::uint32_t> shared;  // the producer writes, the consumer reads
  DeviceBuffer<std::uint32_t> out;
  PinnedBuffer<std::uint32_t> host;
  explicit DependencyBuffers(std::size_t n) : shared(n), out(n), host(n) {}
};

// The event was last recorded after the previous round, which finished long ago. Done right,
// this round records it again before the consumer's stream waits on it; done wrong, the wait is
// enqueued first, so it sees the previous record (already complete) and does not wait at all.
void run_dependency(const Stream& producer, const Stream& consumer, DependencyBuffers& b, const Event& ready,
                    std::uint32_t seed, std::uint64_t spin_ns, bool right) {
  const int n = static_cast<int>(b.shared.size());
  if (right) {
    launch_producer(producer, b.shared.data(), n, seed, spin_ns);
    ready.record(producer);
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(consumer, ready.get(), 0));
    launch_consumer(consumer, b.shared.data(), b.out.data(), n);
  } else {
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(consumer, ready.get(), 0));
    launch_consumer(consumer, b.shared.data(), b.out.data(), n);
    launch_producer(producer, b.shared.data(), n, seed, spin_ns);
    ready.record(producer);
  }
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(b.host.data(), b.out.data(), b.out.bytes(), cudaMemcpyDeviceToHost, consumer));
  consumer.synchronize();
  producer.synchronize();
}

struct RoundResult {
  std::size_t correct = 0;
  std::size_t stale = 0;
};

RoundResult dependency_round(const Stream& producer, const Stream& consumer, DependencyBuffers& b,
                             std::uint32_t seed, std::uint64_t spin_ns, bool right) {
  const std::uint32_t previous_seed = seed ^ 0x5bd1e995u;
  const Event ready(cudaEventDisableTiming);
  const int n = static_cast<int>(b.shared.size());
  launch_producer(producer, b.shared.data(), n, previous_seed, 0);  // the previous round, complete
  ready.record(producer);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(b.out.data(), 0xFF, b.out.bytes(), producer));  // poison
  producer.synchronize();
  std::memset(b.host.data(), 0xFF, b.host.bytes());
  run_dependency(producer, consumer, b, ready, seed, spin_ns, right);
  RoundResult r;
  for (std::size_t i = 0; i < b.host.size(); ++i) {
    const auto idx = static_cast<std::uint32_t>(i);
    r.correct += b.host[i] == consumed_value(produced_value(idx, seed)) ? 1 : 0;
    r.stale += b.host[i] == consumed_value(produced_value(idx, previous_seed)) ? 1 : 0;
  }
  return r;
}

constexpr std::uint32_t kSeedStep = 0x9e3779b9u;  // a fresh seed per round: a stale buffer cannot pass

void measure_dependencies(const Params& p, const Repetitions& reps, const Stream& producer, const Stream& consumer,
                          Measurements& m) {
  DependencyBuffers buffers(static_cast<std::size_t>(p.elements));
  std::uint32_t seed = 3;
  for (int i = 0; i < std::min(reps.repeat, kDependencyRounds); ++i) {
    const RoundResult right = dependency_round(producer, consumer, buffers, seed++ * kSeedStep, ns_from_us(p.producer_us), true);
    m.right.add(right.correct, buffers.host.size());
    const RoundResult wrong = dependency_round(producer, consumer, buffers, seed++ * kSeedStep, ns_from_us(p.producer_us), false);
    m.wrong.add(wrong.correct, buffers.host.size());
    m.wrong_stale += wrong.stale;
  }
}

void trace_dependencies(const Params& p, const Stream& producer, const Stream& consumer, Measurements& m) {
  DependencyBuffers buffers(static_cast<std::size_t>(p.elements));
  const std::vector<NamedLane> lanes = {{producer, "producer"}, {consumer, "consumer"}};
  for (const bool right : {true, false}) {
    traced_run(m.timelines,
               right ? "done right: record, then the consumer's stream waits on it"
                     : "done wrong: the wait was enqueued before the record",
               lanes, [&](TraceSession&) {
                 (void)dependency_round(producer, consumer, buffers, 11 * kSeedStep, ns_from_us(p.producer_us), right);
               });
  }
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m;
  const Stream stream;
  const Stream other;
  {
    const Phase phase("timing");
    const DeviceBuffer<std::int64_t> stamps(4);
    m.timing = repeat(ctx.reps, [&] { return measure_timing(stream, stamps, p.kernel_us); });
    m.records = repeat(ctx.reps, [&] { return measure_record_cost(stream, p.records); });
    m.chain = repeat(ctx.reps, [&] { return measure_chain(stream, other, stamps, p.kernel_us); });
  }
  in_phase("waits", [&] { measure_waits(p, ctx.reps, stream, m); });
  in_phase("dependencies", [&] { measure_dependencies(p, ctx.reps, stream, other, m); });
  if (ctx.tracing()) in_phase("trace", [&] { trace_dependencies(p, stream, other, m); });
  return m;
}

}  // namespace cudalab::events_sync
