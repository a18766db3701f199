// Lesson 10 · multi-gpu: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_multi_gpu() {
  return make_lesson(multi_gpu::flags, Repetitions{2, 10}, multi_gpu::measure, multi_gpu::predict,
                     multi_gpu::build_report);
}

}  // namespace cudalab
