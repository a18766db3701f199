// Lesson 05 · callbacks: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_callbacks() {
  return make_lesson(callbacks::flags, Repetitions{3, 50}, callbacks::measure, callbacks::predict,
                     callbacks::build_report);
}

}  // namespace cudalab
