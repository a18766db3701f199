// Lesson 06 · graph-pitfall: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_graph_pitfall() {
  return make_lesson(graph_pitfall::flags, Repetitions{2, 10}, graph_pitfall::measure, graph_pitfall::predict,
                     graph_pitfall::build_report);
}

}  // namespace cudalab
