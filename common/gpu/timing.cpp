#include "common/gpu/timing.hpp"

#include <optional>

#include "common/core/interrupt.hpp"
#include "common/gpu/launch_latch.hpp"
#include "common/core/stats.hpp"

namespace cudalab {

std::vector<double> time_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue, Launch launch) {
  std::optional<LaunchLatch> latch;
  if (launch == Launch::behind_latch && LaunchLatch::usable()) latch.emplace();
  auto once = [&] {
    throw_if_interrupted();
    for (;;) {
      EventTimer timer;
      if (latch && !latch->close(stream)) latch.reset();  // this driver cannot hold a stream
      timer.start(stream);
      enqueue(stream);
      timer.stop(stream);
      if (latch) latch->open();
      const auto ms = static_cast<double>(timer.elapsed_ms());
      // The enqueue waited behind the latch (a tool serialises the GPU): drop this timing and
      // time as enqueued from now on; the CLI says so on the report.
      if (latch && latch->timed_out()) {
        latch.reset();
        continue;
      }
      progress::tick();
      return ms;
    }
  };
  std::vector<double> warmups;
  while (static_cast<int>(warmups.size()) < reps.warmup ||
         (reps.adaptive && reps.warmup > 0 && !settled(warmups) &&
          static_cast<int>(warmups.size()) < reps.warmup + kMaxExtraWarmups)) {
    warmups.push_back(once());
  }
  std::vector<double> samples;
  while (needs_more_samples(samples, reps)) samples.push_back(once());
  return samples;
}

double time_once_on_stream(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue) {
  Repetitions one;
  one.warmup = 0;
  one.repeat = 1;
  one.adaptive = false;
  return time_on_stream(stream, one, enqueue).front();
}

PairedSamples time_pairs_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue_a,
                                   const std::function<void(cudaStream_t)>& enqueue_b) {
  // Each side of a pair is one timed run through time_on_stream; the first pair carries the
  // warm-up. The pair count follows the ratios' own spread.
  Repetitions warm = reps;
  warm.repeat = 1;
  warm.adaptive = false;
  return pairs_in_steady_blocks(reps, kDefaultSpreadTolerance, [&](bool warm_up) {
    if (warm_up) {
      const double a = time_on_stream(stream, warm, enqueue_a).front();
      return std::pair<double, double>{a, time_on_stream(stream, warm, enqueue_b).front()};
    }
    const double a = time_once_on_stream(stream, enqueue_a);
    return std::pair<double, double>{a, time_once_on_stream(stream, enqueue_b)};
  });
}

}  // namespace cudalab
