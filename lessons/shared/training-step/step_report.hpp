// Report pieces lessons 06 and 07 share (pure): the model's inputs, one row per method with its
// prediction, the verify check of each method, and the facts of a graph's shape.
#pragma once

#include <map>
#include <string>

#include "common/report/builder.hpp"
#include "common/core/timeline.hpp"
#include "step_params.hpp"
#include "step_results.hpp"

namespace cudalab::graphs {

// Metric key of a method: "step.multi-stream".
std::string method_key(StepMethod method);

// "graph-serial / multi-stream": a method's step time over plain multi-stream code's, computed
// from (and as noisy as) the two methods' step metrics.
Metric over_multi_stream(std::string key, StepMethod method, double ratio);

void primitives_section(ReportBuilder& b, const ModelInputs& inputs);
void methods_section(ReportBuilder& b, const MethodRuns& runs, const std::map<StepMethod, double>& predicted,
                     const StepParams& params);
// One verify check per method, keyed "<prefix><method>" (prefix "results." unless a lesson runs
// two cases of the step).
void method_verify_checks(ReportBuilder& b, const MethodRuns& runs, std::size_t elements,
                          const std::string& prefix = "results.", const std::string& label_prefix = "");

// Facts of a graph's shape, keyed with `prefix`: "forkjoin.nodes".
void add_shape_facts(SectionBuilder& section, const std::string& prefix, const std::string& label, const DagShape& shape);

}  // namespace cudalab::graphs
