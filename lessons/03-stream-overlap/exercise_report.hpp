// Lesson 03's exercise, the pure part: what the lab asks the child to run, what the child brings
// back, what the student's timeline says went wrong (in the student's terms), and the report that
// sets the student's pipeline beside the lab's. Unit-tested with made-up results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/repetitions.hpp"
#include "common/core/timeline.hpp"
#include "common/exercise/exercise_lesson.hpp"
#include "common/exercise/student_run.hpp"
#include "measure.hpp"
#include "params.hpp"

namespace cudalab::stream_overlap {

// The lane the legacy default stream gets in the student's timeline.
inline constexpr const char* kLegacyLane = "legacy default stream";

// The pipeline the lab measured, as the child must run it.
struct PipelineRequest {
  std::uint64_t size = 0;
  int chunks = 0;
  int streams = 0;
  int iters = 0;
  Repetitions reps;
};
nlohmann::json request_to_json(const PipelineRequest& r);
PipelineRequest request_from_json(const std::string& text);

// What the child measured of the student's pipeline.
struct PipelineResult {
  std::vector<double> ms;                     // the timed runs
  std::vector<std::uint64_t> chunk_bytes;     // each chunk's size
  std::vector<std::uint64_t> wrong_by_chunk;  // bytes wrong in each chunk, in the traced, checked run
  std::optional<Timeline> timeline;           // that run, as CUPTI saw it (none where CUPTI is not there)
  std::vector<int> chunk_of_op;               // for each of its ops, the chunk it moved or computed (-1: none known)
  int bench_lanes = 0;                        // its first lanes are the bench's streams, in order
  std::string no_timeline;                    // why there is none (CUPTI's words), when there is none
};
nlohmann::json result_to_json(const PipelineResult& r);
// Throws UsageError when the child's JSON is not such a result (the child shares its process
// with the student's code: what it says is read as untrusted).
PipelineResult result_from_json(const nlohmann::json& j);

// One finding about the student's pipeline; stable when it cannot change between correct runs.
struct Finding {
  std::string key;
  Message line;
  bool stable = true;
};
// What the timeline and the checked bytes say, most important first: wrong bytes and why, work on
// one stream, on the legacy default stream or on a stream of the student's own, host waits inside
// pipeline(), uploads that ran back to back.
std::vector<Finding> read_pipeline(const PipelineResult& result, const PipelineRequest& request);

// Done: every byte right, and a speed-up over one stream of at least this share of the lab's own
// depth-first speed-up in the same run (issue 44).
inline constexpr double kDoneShare = 0.9;

// The report of an exercise run: the lab's yardstick (measured in the lab's own context), the
// student's run (or the verdict that ended it), the findings, the checks every exercise carries.
Report build_exercise_report(const Params& p, const Measurements& lab, const StudentRun& student,
                             const StudentBuild& build);

}  // namespace cudalab::stream_overlap
