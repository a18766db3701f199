// Lesson 02 · pinned-vs-pageable: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(2, "pinned-vs-pageable")
                   .titled("pinned vs pageable host memory", "锁页内存与可分页内存")
                   .summarized("copy bandwidth and host blocking for pageable, pinned and registered memory",
                               "可分页、锁页和注册内存的拷贝带宽与主机阻塞")
                   .made_by([] {
                     return make_lesson(pinned::flags, Repetitions{2, 20}, pinned::measure,
                                        pinned::predict, pinned::build_report);
                   }))

}  // namespace cudalab
