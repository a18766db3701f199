// The GPU side lessons 06 and 07 share: the model's inputs measured on this device, and each way
// of running the training step timed and verified.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/gpu/device.hpp"
#include "common/core/timeline.hpp"
#include "step_params.hpp"
#include "step_runs.hpp"

namespace cudalab::graphs {

ModelInputs measure_model_inputs(const TrainingStep& step, const DeviceInfo& device, const Repetitions& reps);

// One case of the step at `p` (its own TrainingStep, with p's layer kernel): the model's inputs
// and each of `methods` timed and verified.
StepCase measure_case(const StepParams& p, const std::vector<StepMethod>& methods, const DeviceInfo& device,
                      const Repetitions& reps);
// The same on a step the caller built for `p` and keeps (for its graph's shape, its trace).
StepCase measure_case(const StepParams& p, const TrainingStep& step, const StepStreams& streams,
                      const std::vector<StepMethod>& methods, const DeviceInfo& device, const Repetitions& reps);

MethodRun run_method(StepMethod method, const TrainingStep& step, const StepStreams& streams, int steps,
                     const Repetitions& reps);
MethodRuns run_methods(const std::vector<StepMethod>& methods, const TrainingStep& step, const StepStreams& streams,
                       int steps, const Repetitions& reps);

// One more, untimed training step of `method` under CUPTI, appended to `timelines`: graph
// launches on the origin's lane, batches on "stream i".
void trace_method(std::vector<Timeline>& timelines, StepMethod method, const TrainingStep& step,
                  const StepStreams& streams, const Message& title);

}  // namespace cudalab::graphs
