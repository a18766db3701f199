// Lesson 09 · events-sync: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_events_sync() {
  return make_lesson(events_sync::flags, Repetitions{3, 20}, events_sync::measure, events_sync::predict,
                     events_sync::build_report);
}

}  // namespace cudalab
