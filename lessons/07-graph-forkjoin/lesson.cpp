// Lesson 07 · graph-forkjoin: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(7, "graph-forkjoin")
                   .titled("CUDA Graphs done right", "用对了的 CUDA 图")
                   .summarized("fork/join capture makes a parallel DAG; launch overhead per kernel",
                               "分叉/汇合捕获得到并行的 DAG；每个核函数的启动开销")
                   .made_by([] {
                     return make_lesson(graph_forkjoin::flags, Repetitions{2, 10}, graph_forkjoin::measure,
                                        graph_forkjoin::predict, graph_forkjoin::build_report);
                   }))

}  // namespace cudalab
