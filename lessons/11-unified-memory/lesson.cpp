// Lesson 11 · unified-memory: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(11, "unified-memory")
                   .titled("managed, prefetched and zero-copy memory", "托管内存、预取与零拷贝")
                   .summarized("one workload four ways: explicit copies, managed memory on demand and "
                               "prefetched, zero-copy",
                               "同一个工作负载的四种方式：显式拷贝、按需与预取的托管内存、零拷贝")
                   .made_by([] {
                     return make_lesson(unified_memory::flags, Repetitions{2, 10}, unified_memory::measure,
                                        unified_memory::predict, unified_memory::build_report);
                   }))

}  // namespace cudalab
