// Lesson 03 · stream-overlap: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_stream_overlap() {
  return make_lesson(stream_overlap::flags, Repetitions{3, 30}, stream_overlap::measure, stream_overlap::predict,
                     stream_overlap::build_report);
}

}  // namespace cudalab
