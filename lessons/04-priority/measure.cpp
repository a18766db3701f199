// Lesson 04's experiment: a background kernel fills every SM for many waves of blocks of known
// duration; an urgent kernel is enqueued on another stream while it runs. We time the urgent
// kernel alone, behind the background at the same priority, and behind it at a higher priority.
// Then the lecture's own priority demo, as it ran it and with the priorities swapped.
#include "measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>


#include "common/core/errors.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/event_time.hpp"
#include "common/gpu/mapped_memory.hpp"
#include "common/gpu/traced_run.hpp"
#include "kernels.hpp"
#include "lessons/shared/lecture-kernel/sin_cos_kernel.hpp"
#include "model.hpp"

namespace cudalab::priority {

namespace {

// The longest a background can take to show its first block: far above any launch latency.
constexpr auto kStartTimeout = std::chrono::seconds(10);

struct Buffers {
  DeviceBuffer<std::uint32_t> background;
  DeviceBuffer<std::uint32_t> urgent;
  PinnedBuffer<int> started{1};  // set by the background's first block, polled by the host
  // Where both outputs are read back, allocated once: the background's is 5.4 million elements at
  // the defaults, read back 34 times in a turn.
  PinnedBuffer<std::uint32_t> readback{std::max(background.size(), urgent.size())};
};

// Reads a buffer back into `host` and counts the elements that match the CPU's value for them.
template <class Expected>
void check_against_cpu(const DeviceBuffer<std::uint32_t>& buffer, PinnedBuffer<std::uint32_t>& host, Expected expected,
                       Tally& tally) {
  CUDALAB_CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), buffer.bytes(), cudaMemcpyDeviceToHost));
  std::size_t correct = 0;
  for (std::size_t i = 0; i < buffer.size(); ++i) correct += host[i] == expected(static_cast<std::uint32_t>(i)) ? 1 : 0;
  tally.add(correct, buffer.size());
}

const auto expected_background = [](std::uint32_t i) { return background_value(i); };
const auto expected_urgent = [](std::uint32_t i) { return urgent_value(i); };

void wait_until_started(const PinnedBuffer<int>& started) {
  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (*static_cast<volatile int*>(started.data()) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw RuntimeError("the background kernel did not start within 10 s");
    }
  }
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
  check_against_cpu(b.urgent, b.readback, expected_urgent, urgent_tally);
  return elapsed_us(enqueued, done);
}

// The tallies may be null: the traced run skips the read-back, which would otherwise stretch
// its picture by tens of milliseconds of copies and host checking.
BehindSample run_behind(const Stream& background_stream, const Stream& urgent_stream, Buffers& b, const Params& p,
                        int background_blocks, Tally* background_tally, Tally* urgent_tally) {
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
                    static_cast<std::uint64_t>(p.block_us) * 1000u, device_view(b.started));
  background_done.record(background_stream);
  wait_until_started(b.started);  // the first wave is resident: now the GPU is full
  urgent_enqueued.record(urgent_stream);
  launch_urgent(urgent_stream, b.urgent.data(), p.urgent_blocks);
  urgent_done.record(urgent_stream);
  background_done.synchronize();
  urgent_done.synchronize();

  if (background_tally != nullptr) check_against_cpu(b.background, b.readback, expected_background, *background_tally);
  if (urgent_tally != nullptr) check_against_cpu(b.urgent, b.readback, expected_urgent, *urgent_tally);
  return BehindSample{elapsed_us(urgent_enqueued, urgent_done), elapsed_us(background_start, urgent_enqueued),
                      elapsed_us(background_start, background_done)};
}

// --- the lecture's priority demo, as the lecture ran it and with the priorities swapped -------

constexpr int kShortIterations = 1000;
constexpr int kLongIterations = 2000;

struct LectureBuffers {
  DeviceBuffer<float> in{kLectureElements};
  DeviceBuffer<float> short_out{kLectureElements};
  DeviceBuffer<float> long_out{kLectureElements};
  std::vector<double> short_expected;  // one per distinct input
  std::vector<double> long_expected;
  std::vector<float> readback = std::vector<float>(kLectureElements);  // reused by every check
};

LectureBuffers make_lecture_buffers() {
  LectureBuffers b;
  std::vector<float> in(kLectureElements);
  for (int i = 0; i < kLectureElements; ++i) in[static_cast<std::size_t>(i)] = lecture::input(static_cast<std::size_t>(i));
  CUDALAB_CUDA_CHECK(cudaMemcpy(b.in.data(), in.data(), b.in.bytes(), cudaMemcpyHostToDevice));
  b.short_expected = lecture::sin_cos_on_cpu(kShortIterations);
  b.long_expected = lecture::sin_cos_on_cpu(kLongIterations);
  return b;
}

void check_lecture_output(const DeviceBuffer<float>& out, std::vector<float>& host, const std::vector<double>& expected,
                          Tally& tally) {
  CUDALAB_CUDA_CHECK(cudaMemcpy(host.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  tally.add(lecture::count_matching(host.data(), out.size(), expected));
}

// The lecture's two kernels on their streams, each timed between events on its own stream; a
// null stream leaves that kernel out (it then runs alone).
LectureSample run_lecture(const Stream* long_stream, const Stream* short_stream, LectureBuffers& b, Tally& tally) {
  CUDALAB_CUDA_CHECK(cudaMemset(b.short_out.data(), 0xFF, b.short_out.bytes()));  // poison: NaN fails the check
  CUDALAB_CUDA_CHECK(cudaMemset(b.long_out.data(), 0xFF, b.long_out.bytes()));
  CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  Event long_start, long_done, short_start, short_done;
  if (long_stream != nullptr) {  // the lecture launches the 2000-iteration kernel first
    long_start.record(*long_stream);
    lecture::launch_sin_cos(*long_stream, b.in.data(), b.long_out.data(), kLectureElements, kLongIterations);
    long_done.record(*long_stream);
  }
  if (short_stream != nullptr) {
    short_start.record(*short_stream);
    lecture::launch_sin_cos(*short_stream, b.in.data(), b.short_out.data(), kLectureElements, kShortIterations);
    short_done.record(*short_stream);
  }
  CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  LectureSample s;
  if (long_stream != nullptr) {
    check_lecture_output(b.long_out, b.readback, b.long_expected, tally);
    s.long_ms = elapsed_us(long_start, long_done) / 1000.0;
  }
  if (short_stream != nullptr) {
    check_lecture_output(b.short_out, b.readback, b.short_expected, tally);
    s.short_ms = elapsed_us(short_start, short_done) / 1000.0;
  }
  return s;
}

void measure_lecture_demo(const RunContext& ctx, Measurements& m) {
  const Stream most_urgent(cudaStreamNonBlocking, m.greatest);
  const Stream least_urgent(cudaStreamNonBlocking, m.least);
  m.lecture_blocks_per_sm = lecture::blocks_per_sm();
  m.lecture_blocks = lecture::blocks_for(kLectureElements);
  LectureBuffers b = make_lecture_buffers();
  Tally& t = m.lecture_results;
  m.lecture_short_alone_ms = column(repeat(ctx.reps, [&] { return run_lecture(nullptr, &most_urgent, b, t); }),
                                    &LectureSample::short_ms);
  m.lecture_long_alone_ms = column(repeat(ctx.reps, [&] { return run_lecture(&least_urgent, nullptr, b, t); }),
                                   &LectureSample::long_ms);
  m.lecture_as_given = repeat(ctx.reps, [&] { return run_lecture(&least_urgent, &most_urgent, b, t); });
  m.lecture_swapped = repeat(ctx.reps, [&] { return run_lecture(&most_urgent, &least_urgent, b, t); });
}

}  // namespace

Measurements measure(const Params& p, const RunContext& ctx) {
  Measurements m;
  CUDALAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&m.least, &m.greatest));
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&m.sm_count, cudaDevAttrMultiProcessorCount, ctx.device));
  m.requested = p.priority.value_or(m.greatest);

  const Stream background_stream(cudaStreamNonBlocking, m.least);
  const Stream same_stream(cudaStreamNonBlocking, m.least);
  const Stream urgent_stream(cudaStreamNonBlocking, m.requested);
  m.granted = urgent_stream.priority();  // CUDA clamps into [greatest, least]

  m.blocks_per_sm = background_blocks_per_sm();
  if (m.blocks_per_sm <= 0) throw WaivedError("the background kernel cannot run on this device");
  m.background_blocks = background_block_count(m.sm_count, m.blocks_per_sm, p.waves);

  Buffers b{DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(m.background_blocks) * kBackgroundThreads),
            DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(p.urgent_blocks) * kUrgentThreads)};

  m.alone_us = in_phase("alone", [&] { return repeat(ctx.reps, [&] { return run_alone(same_stream, b, p.urgent_blocks, m.urgent); }); });
  auto behind = [&](const Stream& urgent) {
    return repeat(ctx.reps, [&] {
      return run_behind(background_stream, urgent, b, p, m.background_blocks, &m.background, &m.urgent);
    });
  };
  m.same = in_phase("same priority", [&] { return behind(same_stream); });
  m.high = in_phase("high priority", [&] { return behind(urgent_stream); });
  in_phase("lecture demo", [&] { measure_lecture_demo(ctx, m); });

  if (ctx.tracing()) {
    const Phase phase("trace");
    // One more run of each case, untimed, for the picture; the timed runs checked the results.
    auto trace_case = [&](const Stream& urgent, const Message& title) {
      traced_run(m.timelines, title, {{background_stream, "background"}, {urgent, "urgent"}}, [&](TraceSession&) {
        (void)run_behind(background_stream, urgent, b, p, m.background_blocks, nullptr, nullptr);
      });
    };
    trace_case(same_stream, "urgent kernel at the background's priority: it waits for the last wave");
    trace_case(urgent_stream,
               msg("urgent kernel at priority {priority}: it runs as soon as SMs free up", arg("priority", m.granted)));
  }
  return m;
}

}  // namespace cudalab::priority
