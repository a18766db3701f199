#include "common/report/timeline_json.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/core/errors.hpp"
#include "common/report/render_timeline.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

using nlohmann::json;

namespace {

// Perfetto colours slices by name. A kernel keeps its symbol, a wait its CUDA call and a host
// callback the lesson's name for it: data, as the run holds them. A page fault or migration is
// named by our words (trace_session.cpp marks them N_), translated as any template is (a name
// from a file that holds braces is safe: a placeholder without an argument stays as written).
// Any other operation is named as the timeline's legend names its kind.
std::string event_name(const TimelineOp& op, Lang lang) {
  const bool named_by_us = op.kind == ActivityKind::page_fault || op.kind == ActivityKind::migration_h2d ||
                           op.kind == ActivityKind::migration_d2h;
  if (op.name.empty()) return tr(lang, activity_legend(op.kind));
  return named_by_us ? tr(lang, Message(op.name)) : op.name;
}

}  // namespace

// ---- Chrome trace --------------------------------------------------------------------------

json chrome_trace_json(const std::vector<Timeline>& timelines, const TraceWords& words) {
  json events = json::array();
  for (std::size_t i = 0; i < timelines.size(); ++i) {
    const Timeline& t = timelines[i];
    const int pid = t.device + 100 * static_cast<int>(i);
    const std::string notes_file = i < words.notes_files.size() ? words.notes_files[i] : std::string();
    const auto say = [&](const Message& m) { return tr(words.lang, m, notes_file); };
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
                      {"args", {{"name", say(msg("GPU {device} · {title}", arg("device", t.device), arg("title", t.title)))}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", i}}}});
    for (std::size_t l = 0; l < t.lanes.size(); ++l) {
      const TimelineLane& lane = t.lanes[l];
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", lane.stream_id},
                        {"args", {{"name", say(lane.name)}}}});
      events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", lane.stream_id},
                        {"args", {{"sort_index", l}}}});
    }
    for (const TimelineOp& op : t.ops) {
      json args = {{"kind", activity_kind_name(op.kind)}};
      if (op.bytes > 0) args["bytes"] = op.bytes;
      if (!op.src_memory.empty()) args["src_memory"] = op.src_memory;
      if (!op.dst_memory.empty()) args["dst_memory"] = op.dst_memory;
      if (op.kind == ActivityKind::kernel && !op.name.empty()) args["kernel"] = op.name;
      if (op.bytes > 0 && op.duration_ns() > 0 && op.kind != ActivityKind::kernel) {
        args["GB/s"] = static_cast<double>(op.bytes) / static_cast<double>(op.duration_ns());
      }
      // Chrome trace times are microseconds; fractions keep the nanoseconds.
      events.push_back({{"ph", "X"},
                        {"name", event_name(op, words.lang)},
                        {"cat", activity_kind_name(op.kind)},
                        {"pid", pid},
                        {"tid", t.lanes.at(op.lane).stream_id},
                        {"ts", static_cast<double>(op.start_ns) / 1e3},
                        {"dur", static_cast<double>(op.duration_ns()) / 1e3},
                        {"args", std::move(args)}});
    }
  }
  return json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
}

void write_chrome_trace(const std::string& path, const std::vector<Timeline>& timelines, const TraceWords& words) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) {
    throw UsageError(
        msg("--trace: cannot write '{file}': {reason}", arg("file", path), arg("reason", errno_words(errno))));
  }
  out << chrome_trace_json(timelines, words).dump(1) << '\n';
  if (!out) {
    throw UsageError(
        msg("--trace: writing '{file}' failed: {reason}", arg("file", path), arg("reason", errno_words(errno))));
  }
}

// ---- report JSON ---------------------------------------------------------------------------

void to_json(json& j, const Timeline& t) {
  json lanes = json::array();
  for (const auto& lane : t.lanes) lanes.push_back({{"stream_id", lane.stream_id}, {"name", lane.name}});
  json ops = json::array();
  for (const auto& op : t.ops) {
    json o = {{"kind", activity_kind_name(op.kind)}, {"lane", op.lane}, {"start_ns", op.start_ns}, {"end_ns", op.end_ns}};
    if (op.bytes > 0) o["bytes"] = op.bytes;
    if (!op.name.empty()) o["name"] = op.name;
    if (!op.src_memory.empty()) o["src_memory"] = op.src_memory;
    if (!op.dst_memory.empty()) o["dst_memory"] = op.dst_memory;
    ops.push_back(std::move(o));
  }
  j = json{{"key", t.key},     {"title", t.title}, {"notes_key", t.notes_key},
           {"device", t.device}, {"dropped_records", t.dropped_records},
           {"lanes", std::move(lanes)}, {"ops", std::move(ops)}};
}

namespace {

TimelineOp read_op(const JsonField& f, std::size_t lanes) {
  TimelineOp op;
  const auto kind = activity_kind_from_name(f.at("kind").text());
  if (!kind) f.at("kind").fail(Message("not a kind of operation (h2d, d2h, kernel, memset, ...)"));
  op.kind = *kind;
  op.lane = static_cast<std::size_t>(f.at("lane").count());
  if (op.lane >= lanes) {
    f.at("lane").fail(msg("lane {lane} of a timeline with {lanes} lanes", arg("lane", op.lane), arg("lanes", lanes)));
  }
  op.start_ns = f.at("start_ns").integer(INT64_MIN, INT64_MAX);
  op.end_ns = f.at("end_ns").integer(INT64_MIN, INT64_MAX);
  if (const auto bytes = f.find("bytes")) op.bytes = bytes->count();
  for (auto [key, text] : {std::pair{"name", &op.name}, {"src_memory", &op.src_memory}, {"dst_memory", &op.dst_memory}}) {
    if (const auto member = f.find(key)) *text = member->text();
  }
  return op;
}

}  // namespace

Timeline read_timeline(const JsonField& f) {
  Timeline t;
  t.key = f.at("key").text();
  t.title = read_message(f.at("title"));
  if (const auto notes = f.find("notes_key")) t.notes_key = notes->text();
  t.device = static_cast<int>(f.at("device").integer(0, 1 << 16));
  if (const auto dropped = f.find("dropped_records")) t.dropped_records = dropped->count();
  f.at("lanes").each([&](const JsonField& lane) {
    t.lanes.push_back(TimelineLane{static_cast<std::uint32_t>(lane.at("stream_id").integer(0, UINT32_MAX)),
                                   read_message(lane.at("name"))});
  });
  const JsonField ops = f.at("ops");
  t.ops.reserve(ops.value().is_array() ? ops.value().size() : 0);
  ops.each([&](const JsonField& op) { t.ops.push_back(read_op(op, t.lanes.size())); });
  return t;
}

}  // namespace cudalab
