#include "timing.hpp"

#include "interrupt.hpp"

namespace cudalab {

double host_ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double host_us_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> time_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue) {
  return repeat_measurement(reps, [&] {
    EventTimer timer;
    timer.start(stream);
    enqueue(stream);
    timer.stop(stream);
    return static_cast<double>(timer.elapsed_ms());
  });
}

std::vector<double> repeat_measurement(const Repetitions& reps,
                                       const std::function<double()>& run_once) {
  for (int i = 0; i < reps.warmup; ++i) {
    throw_if_interrupted();
    (void)run_once();
  }
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps.repeat));
  for (int i = 0; i < reps.repeat; ++i) {
    throw_if_interrupted();
    samples.push_back(run_once());
  }
  return samples;
}

}  // namespace cudalab
