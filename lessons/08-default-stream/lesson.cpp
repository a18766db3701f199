// Lesson 08 · default-stream: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_default_stream() {
  return make_lesson(default_stream::flags, Repetitions{1, 7}, default_stream::measure, default_stream::predict,
                     default_stream::build_report);
}

}  // namespace cudalab
