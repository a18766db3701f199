// The batch scheduler's fields of a run (SchedulerContext) by their JSON names: one list for
// writing them, reading them back and making them printable, so the three cannot drift apart.
#pragma once

#include <array>
#include <utility>

#include "common/report/report.hpp"

namespace cudalab {

// The scheduler's fields by their JSON names, for writing, reading and making them printable.
template <class Context>  // SchedulerContext or const SchedulerContext
auto scheduler_fields(Context& s) {
  return std::array{std::pair{"job_id", &s.job_id}, std::pair{"array_job_id", &s.array_job_id},
                    std::pair{"array_task_id", &s.array_task_id}, std::pair{"node", &s.node},
                    std::pair{"node_id", &s.node_id}, std::pair{"gpus", &s.gpus}, std::pair{"rank", &s.rank},
                    std::pair{"world_size", &s.world_size}, std::pair{"local_rank", &s.local_rank}};
}

}  // namespace cudalab
