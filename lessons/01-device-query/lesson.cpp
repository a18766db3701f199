// Lesson 01 · device-query: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_device_query() {
  return make_lesson(device_query::flags, Repetitions{0, 1}, device_query::measure, device_query::predict,
                     device_query::build_report);
}

}  // namespace cudalab
