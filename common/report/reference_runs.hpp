// The reference runs recorded on the lab GPU (course-notes/runs/*.json), built into the binary,
// so a student without a GPU can read every lesson's output: `cudalab show 03`.
#pragma once

#include <optional>
#include <string_view>

namespace cudalab {

// The JSON text of the reference run "NN-lesson-name" (the lesson's notes-file name);
// nullopt when none is built in.
std::optional<std::string_view> reference_run(std::string_view name);

namespace detail {
struct EmbeddedRun {
  const char* name;  // "NN-lesson-name"; nullptr ends the table
  const char* json;
};
extern const EmbeddedRun kEmbeddedRuns[];
}  // namespace detail

}  // namespace cudalab
