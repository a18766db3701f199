// Lesson 05 · callbacks: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(5, "callbacks")
                   .titled("host functions in stream order", "按流顺序执行的主机函数")
                   .summarized("cudaLaunchHostFunc: latency, blocking, and what not to do inside",
                               "cudaLaunchHostFunc：延迟、阻塞，以及回调里不该做什么")
                   .made_by([] {
                     return make_lesson(callbacks::flags, Repetitions{3, 50}, callbacks::measure,
                                        callbacks::predict, callbacks::build_report);
                   }))

}  // namespace cudalab
