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
  return repeat(reps, [&] {
    EventTimer timer;
    timer.start(stream);
    enqueue(stream);
    timer.stop(stream);
    return static_cast<double>(timer.elapsed_ms());
  });
}

}  // namespace cudalab
