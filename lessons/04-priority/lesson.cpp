// Lesson 04 · priority: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(4, "priority")
                   .titled("stream priorities", "流优先级")
                   .summarized("an urgent kernel behind a GPU-filling load, with and without a high-priority stream",
                               "排在占满 GPU 的负载之后的紧急核函数，有无高优先级流的对比")
                   .made_by([] {
                     return make_lesson(priority::flags, Repetitions{2, 15}, priority::measure,
                                        priority::predict, priority::build_report);
                   }))

}  // namespace cudalab
