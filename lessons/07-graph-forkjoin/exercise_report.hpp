// Lesson 07's exercise, the pure part: the step the lab asks the child to capture, what the child
// brings back (the student's graph's shape, its replays, its results), what that shape says in
// the student's terms, and the report beside the lab's own captures. Unit-tested with made-up runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/repetitions.hpp"
#include "common/core/timeline.hpp"
#include "common/exercise/exercise_lesson.hpp"
#include "common/exercise/student_run.hpp"
#include "common/model/graph_shape.hpp"
#include "lessons/shared/training-step/step_results.hpp"
#include "params.hpp"

namespace cudalab::graph_forkjoin {

// The step the lab measured, as the child must capture it.
struct CaptureRequest {
  int batches = 0;
  int layers = 0;
  int streams = 0;
  int features = 0;
  int steps = 0;
  std::string kernel;
  Repetitions reps;
};
nlohmann::json request_to_json(const CaptureRequest& r);
CaptureRequest request_from_json(const std::string& text);

// What the child measured of the student's graph.
struct CaptureResult {
  DagShape shape;                   // the graph the capture made
  std::vector<double> per_step_us;  // its replays, one step each
  std::size_t correct = 0;          // elements right after the replays
  std::size_t elements = 0;
  std::optional<Timeline> timeline;  // one replay under CUPTI
};
nlohmann::json result_to_json(const CaptureResult& r);
CaptureResult result_from_json(const nlohmann::json& j);  // untrusted: UsageError when it is not one

// The lab's yardstick, measured in its own context: the whole step captured on one stream (the
// starter's graph), the lesson's fork/join capture, and what the model says of the two.
struct CaptureYardstick {
  graphs::MethodRun one_stream;
  graphs::MethodRun fork_join;
  std::size_t elements = 0;
  double model_one_stream_us = 0;
  double model_fork_join_us = 0;
};

struct GraphFinding {
  std::string key;
  Message line;
};
// What the graph's shape says: one chain, fewer branches than the streams allow.
std::vector<GraphFinding> read_graph(const CaptureResult& result, const CaptureRequest& request);

// Done: the graph as wide as the step allows, every element right, and a speed-up over the
// one-stream capture of at least this share of the smaller of the model's and the lab's own.
inline constexpr double kDoneShare = 0.9;

Report build_capture_report(const Params& p, const CaptureYardstick& lab, const StudentRun& student,
                            const StudentBuild& build);

}  // namespace cudalab::graph_forkjoin
