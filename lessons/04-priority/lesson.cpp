// Lesson 04 · priority: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_priority() {
  return make_lesson(priority::flags, Repetitions{2, 15}, priority::measure, priority::predict,
                     priority::build_report);
}

}  // namespace cudalab
