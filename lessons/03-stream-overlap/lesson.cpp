// Lesson 03 · stream-overlap: what it is, and its four parts in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "common/lesson/registry.hpp"

namespace cudalab {

CUDALAB_LESSON(LessonDescription(3, "stream-overlap")
                   .titled("overlapping copies and kernels", "拷贝与核函数的重叠")
                   .summarized("one stream vs many: the copy/compute staircase, predicted and measured",
                               "一个流对多个流：拷贝/计算的阶梯，先预测再测量")
                   .made_by([] {
                     return make_lesson(stream_overlap::flags, Repetitions{3, 30}, stream_overlap::measure,
                                        stream_overlap::predict, stream_overlap::build_report);
                   }))

}  // namespace cudalab
