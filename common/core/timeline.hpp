// The timeline: what the GPU did during one traced run, as data. One lane per stream, each
// operation with its kind, start/end (ns from the first operation) and bytes. CUPTI fills it
// (gpu/trace_session.hpp); the report layer draws it in the terminal (report/render_timeline.hpp),
// saves it with the run and writes it as Chrome trace events (report/timeline_json.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// The last three come from unified (managed) memory: pages the driver migrated between host and
// device, and the page faults that made it (trace_session.hpp, record_unified_memory).
enum class ActivityKind { h2d, d2h, d2d, h2h, kernel, memset, host_callback, sync, migration_h2d, migration_d2h, page_fault };

// "h2d", "kernel", "host_callback", ... (also the JSON spelling); from_name: nullopt for others.
const char* activity_kind_name(ActivityKind kind);
std::optional<ActivityKind> activity_kind_from_name(std::string_view name);

struct TimelineLane {
  std::uint32_t stream_id = 0;  // CUPTI's stream id (the Chrome trace tid)
  Message name;                 // "chunk 0", "transfer", or "stream 13" when the lesson named none
};

struct TimelineOp {
  ActivityKind kind = ActivityKind::kernel;
  std::size_t lane = 0;        // index into Timeline::lanes
  std::int64_t start_ns = 0;   // relative to the first operation of the timeline
  std::int64_t end_ns = 0;
  std::uint64_t bytes = 0;     // copies and memsets
  std::string name;            // kernel name; "" for copies
  std::string src_memory;      // copies: "pageable", "pinned", "device", "managed", ...
  std::string dst_memory;
  // CUPTI's id of the API call that made it, in the process that traced it (0: none): what ties an
  // operation to the call that asked for it (gpu/api_calls.hpp). Never saved with a run.
  std::uint32_t correlation = 0;

  std::int64_t duration_ns() const { return end_ns - start_ns; }
};

struct Timeline {
  std::string key;        // unique within the report: "overlapped"
  Message title;          // for people: "overlapped (4 streams)"
  std::string notes_key;  // course-notes section printed under it ("" = none)
  int device = 0;
  std::vector<TimelineLane> lanes;
  std::vector<TimelineOp> ops;
  std::uint64_t dropped_records = 0;  // CUPTI ran out of buffer: the picture is incomplete

  std::int64_t span_ns() const;  // end of the last operation (ops start at >= 0)
};

}  // namespace cudalab
