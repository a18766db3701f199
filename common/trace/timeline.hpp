// The timeline: what the GPU did during one traced run, as data. One lane per stream, each
// operation with its kind, start/end (ns from the first operation) and bytes. CUPTI fills it
// (trace_session.hpp); renderers draw it in the terminal (render_timeline) or write it as Chrome
// trace events for Perfetto / chrome://tracing (chrome_trace_json). It is saved with the run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudalab {

enum class ActivityKind { h2d, d2h, d2d, h2h, kernel, memset, host_callback, sync };

// "h2d", "kernel", "host_callback", ... (also the JSON spelling); from_name throws on others.
const char* activity_kind_name(ActivityKind kind);
ActivityKind activity_kind_from_name(const std::string& name);

struct TimelineLane {
  std::uint32_t stream_id = 0;  // CUPTI's stream id (the Chrome trace tid)
  std::string name;             // "chunk 0", "transfer", or "stream 13" when the lesson named none
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

  std::int64_t duration_ns() const { return end_ns - start_ns; }
};

struct Timeline {
  std::string key;        // unique within the report: "overlapped"
  std::string title;      // for people: "overlapped (4 streams)"
  std::string notes_key;  // course-notes section printed under it ("" = none)
  int device = 0;
  std::vector<TimelineLane> lanes;
  std::vector<TimelineOp> ops;
  std::uint64_t dropped_records = 0;  // CUPTI ran out of buffer: the picture is incomplete

  std::int64_t span_ns() const;  // end of the last operation (ops start at >= 0)
};

struct TimelineStyle {
  bool color = false;
  std::size_t width = 80;  // total columns, labels included
  // The chart's own words ("legend", "kernel", ...) in the reader's language; empty: as they are.
  std::function<std::string(const std::string&)> words;
};

// The Gantt chart, one string per line (no trailing newlines): a lane per stream, a time axis
// with units, and a legend. Every operation covers at least one cell.
std::vector<std::string> render_timeline(const Timeline& timeline, const TimelineStyle& style);

// Chrome trace events ({"traceEvents": [...], "displayTimeUnit": "ns"}): one "X" event per
// operation (ts/dur in µs), pid = the device, tid = the stream, thread_name/process_name
// metadata. Several timelines in one file stay apart: timeline i gets pid device + 100·i.
nlohmann::json chrome_trace_json(const std::vector<Timeline>& timelines);
// Throws UsageError naming --trace when the file cannot be written.
void write_chrome_trace(const std::string& path, const std::vector<Timeline>& timelines);

void to_json(nlohmann::json& j, const Timeline& t);
void from_json(const nlohmann::json& j, Timeline& t);

}  // namespace cudalab
