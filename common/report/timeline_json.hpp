// The timeline in JSON: as saved inside a run, and as Chrome trace events for Perfetto.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/lang.hpp"
#include "common/core/timeline.hpp"
#include "common/report/json_field.hpp"

namespace cudalab {

// The language a trace's words are in, and for each timeline (by index) the lesson whose
// catalogue holds its title and lanes (Report::notes_file(); missing or "" = the shared one).
struct TraceWords {
  Lang lang = Lang::en;
  std::vector<std::string> notes_files;
};

// Chrome trace events ({"traceEvents": [...], "displayTimeUnit": "ns"}): one "X" event per
// operation (ts/dur in µs), pid = the device, tid = the stream, thread_name/process_name
// metadata, in the student's words. Several timelines in one file stay apart: timeline i gets
// pid device + 100·i.
nlohmann::json chrome_trace_json(const std::vector<Timeline>& timelines, const TraceWords& words = {});
// Throws UsageError naming --trace when the file cannot be written.
void write_chrome_trace(const std::string& path, const std::vector<Timeline>& timelines, const TraceWords& words = {});

void to_json(nlohmann::json& j, const Timeline& t);
// A timeline saved in a run; a problem is a UsageError naming the field (json_field.hpp).
Timeline read_timeline(const JsonField& f);

}  // namespace cudalab
