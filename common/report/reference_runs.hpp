// The reference runs recorded on the lab GPU (course-notes/runs/*.json), built into the binary,
// so a student without a GPU can read every lesson's output: `cudalab show 03`.
#pragma once

#include <optional>
#include <string_view>

namespace cudalab {

// The JSON text of the reference run "NN-lesson-name" (the lesson's notes-file name);
// nullopt when none is built in.
std::optional<std::string_view> reference_run(std::string_view name);

// How long the reference run "NN-lesson-name" held its GPU (its queue.held_s, seconds): what a
// turn of that lesson is stated to take until the queue has learned its real turns
// (common/queue/turn_log.hpp). nullopt when there is no such run or it has no queue record.
std::optional<double> reference_turn_s(std::string_view name);

namespace detail {
struct EmbeddedRun {
  const char* name;  // "NN-lesson-name"; nullptr ends the table
  const char* json;
  double turn_s;     // its queue.held_s, read when the table is generated; 0 when it has none
};
extern const EmbeddedRun kEmbeddedRuns[];
}  // namespace detail

}  // namespace cudalab
