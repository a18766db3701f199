// Lesson 06 · graph-pitfall: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(6, "graph-pitfall")
                   .titled("CUDA Graphs done wrong", "用错了的 CUDA 图")
                   .summarized("capture one batch on one stream: the graph runs serially and loses",
                               "在一个流上捕获一批操作：图串行执行，反而更慢")
                   .made_by([] {
                     return make_lesson(graph_pitfall::flags, Repetitions{2, 10}, graph_pitfall::measure,
                                        graph_pitfall::predict, graph_pitfall::build_report);
                   }))

}  // namespace cudalab
