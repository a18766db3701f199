// Lesson 01 · device-query: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(1, "device-query")
                   .titled("the GPU as a factory of engines", "把 GPU 看成一座有多个车间的工厂")
                   .summarized("SMs, copy engines, priorities, PCIe link: the hardware the other lessons use",
                               "SM、复制引擎、优先级、PCIe 链路：其他各课要用到的硬件")
                   .made_by([] {
                     return make_lesson(device_query::flags, Repetitions{0, 1}, device_query::measure,
                                        device_query::predict, device_query::build_report);
                   }))

}  // namespace cudalab
