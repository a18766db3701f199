// Lesson 07 · graph-forkjoin: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_graph_forkjoin() {
  return make_lesson(graph_forkjoin::flags, Repetitions{2, 10}, graph_forkjoin::measure, graph_forkjoin::predict,
                     graph_forkjoin::build_report);
}

}  // namespace cudalab
