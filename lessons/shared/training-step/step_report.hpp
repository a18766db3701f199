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

// Metric key of a method: "step.multi-stream"; in the fill case "fill.step.multi-stream".
std::string method_key(StepMethod method);
std::string fill_key(StepMethod method);

// "graph-serial / multi-stream": a method's step time over plain multi-stream code's, computed
// from (and as noisy as) the two methods' step metrics.
Metric over_multi_stream(std::string key, StepMethod method, double ratio);

void primitives_section(ReportBuilder& b, const ModelInputs& inputs);
void methods_section(ReportBuilder& b, const MethodRuns& runs, const std::map<StepMethod, double>& predicted,
                     const StepParams& params);
// One verify check per method, keyed "<prefix><method>" (prefix "results." unless a lesson runs
// two cases of the step), reading "graph-serial, every batch", or with a case's name (no
// trailing comma) "launch-bound case, graph-serial, every batch".
void method_verify_checks(ReportBuilder& b, const MethodRuns& runs, std::size_t elements,
                          const std::string& prefix = "results.", const Message& case_name = {});

// Facts of a graph's shape, keyed with `prefix`: "forkjoin.nodes"; `label` names the graph
// ("one-batch graph": words).
void add_shape_facts(SectionBuilder& section, const std::string& prefix, const Message& label, const DagShape& shape);

// Median step time of `over` divided by that of `under`, measured and as the model predicts.
double measured_ratio(const MethodRuns& runs, StepMethod over, StepMethod under);
double model_ratio(const std::map<StepMethod, double>& model, StepMethod over, StepMethod under);

// "16 blocks of 128 threads; the GPU holds 2112 at once"
Message footprint_text(const KernelFootprint& f);

// With filling kernels, streams must buy less than with small ones: the fill case's gain from S
// streams (graph-serial / multi-stream - 1) stays below this share of the small case's. Small
// kernels (16 blocks on 132 SMs) from S streams run side by side, a gain near S - 1 (+275% at 4
// streams on the lab H100). Filling kernels run one at a time but for their edges: the copies (a
// few us a batch) and, in a ~6-8 us kernel, its start, its tail and the launch latency between
// dependent kernels, which another stream's kernel fills (+61% measured on the lab H100, where the
// model, seeing only the copies, predicts +4%). Half the small case's gain sits between the two.
inline constexpr double kFillGainShare = 0.5;

// A measured case and the model's step times for it.
struct CaseResult {
  const StepCase& measured;
  const std::map<StepMethod, double>& model;
};

// The fill case beside the small-kernel case (lessons 06 and 07): how much of the GPU each layer
// kernel takes, what the fork/join graph saves against the host's launching, and the checks that
// the kernels fill the GPU, that streams then buy far less (measured and modelled: the model sees
// only copy overlap, the GPU also overlaps kernel edges) and that the graph saves no more than
// launch time, and every element of each method's fill run verified. The section is returned for
// a lesson's own rows.
SectionBuilder fill_section(ReportBuilder& b, const CaseResult& small, const CaseResult& fill);

}  // namespace cudalab::graphs
