// Lesson 10 · multi-gpu: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(10, "multi-gpu")
                   .titled("several GPUs: peer copies and NCCL", "多块 GPU：点对点拷贝与 NCCL")
                   .summarized("peer copies and all-reduces overlapped with a backward pass, with priorities",
                               "点对点拷贝和全归约与反向传播重叠，并使用优先级")
                   .needs_gpus(2)
                   .made_by([] {
                     return make_lesson(multi_gpu::flags, Repetitions{2, 10}, multi_gpu::measure,
                                        multi_gpu::predict, multi_gpu::build_report);
                   }))

}  // namespace cudalab
