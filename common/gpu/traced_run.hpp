// One extra, untimed run of a lesson variant under CUPTI, for its picture. Every lesson traces
// the same way: open a session, name the lanes, run the variant's own enqueue code once inside an
// NVTX range, and keep the Timeline when CUPTI worked. Call it only when ctx.tracing(), and only
// after the timed runs (tracing adds overhead the timed figures must not include).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/core/timeline.hpp"
#include "common/gpu/trace_session.hpp"

namespace cudalab {

struct NamedLane {
  cudaStream_t stream;  // nullptr: the legacy default stream
  Message name;         // what a student reads: "chunk 0", "transfer", "urgent"
};

// How many times traced_run calls `run`: an unseen rehearsal, then the traced run. A process that
// must pair its GPU work with a traced one's (a rank of lesson 10 whose all-reduces meet rank 0's)
// runs it as often, or its peer waits forever for the second pass's collectives.
inline constexpr int kTracedRunPasses = 2;

// Runs `run` kTracedRunPasses times under a TraceSession with the given lane names, and keeps the
// last. `run` gets the session so it can report host callbacks (add_host_op) after it
// synchronized; finish() waits for the device. Returns the Timeline (also appended to
// `timelines`), or nullopt when CUPTI could not be used.
std::optional<Timeline> traced_run(std::vector<Timeline>& timelines, const Message& title,
                                   const std::vector<NamedLane>& lanes, const std::function<void(TraceSession&)>& run,
                                   const std::string& notes_key = "timeline",
                                   TraceScope scope = TraceScope::current_device);

// Milliseconds the device was busy on the lane named `lane_name`: the sum of its copies',
// kernels' and memsets' durations (host callbacks and host waits are not device work). 0 when
// no lane has that name (in English, however it was built).
double device_busy_ms(const Timeline& timeline, const Message& lane_name);

}  // namespace cudalab
