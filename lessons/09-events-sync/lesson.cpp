// Lesson 09 · events-sync: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(9, "events-sync")
                   .titled("events and ways to wait", "事件与等待方式")
                   .summarized("timing with events vs host clocks; every way to wait: wake-up latency against CPU burned",
                               "用事件计时对比主机时钟；各种等待方式：唤醒延迟与 CPU 消耗的权衡")
                   .made_by([] {
                     return make_lesson(events_sync::flags, Repetitions{3, 20}, events_sync::measure,
                                        events_sync::predict, events_sync::build_report);
                   }))

}  // namespace cudalab
