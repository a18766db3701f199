// Lesson 08 · default-stream: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(8, "default-stream")
                   .titled("the default stream and implicit synchronization", "默认流与隐式同步")
                   .summarized("stream 0 between streams, per-thread default streams, cudaFree vs cudaFreeAsync",
                               "夹在两个流之间的 0 号流、每线程默认流、cudaFree 对比 cudaFreeAsync")
                   .made_by([] {
                     return make_lesson(default_stream::flags, Repetitions{1, 7}, default_stream::measure,
                                        default_stream::predict, default_stream::build_report);
                   }))

}  // namespace cudalab
