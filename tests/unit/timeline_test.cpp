// The timeline without a GPU: the terminal chart and the Chrome trace from synthetic timelines,
// the JSON round trip, the --timeline/--trace flags, and that the CUPTI record structs this
// build chose compile and expose the fields trace_session.cpp reads.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "cli/app.hpp"
#include "common/gpu/cupti_records.hpp"
#include "common/core/errors.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"
#include "common/core/text_format.hpp"
#include "common/core/timeline.hpp"
#include "common/report/render_timeline.hpp"
#include "common/report/timeline_json.hpp"
#include "test_support.hpp"

using namespace cudalab;
using testing_support::slug_of;

namespace {

TimelineOp op(ActivityKind kind, std::size_t lane, std::int64_t start, std::int64_t end, std::uint64_t bytes = 0) {
  TimelineOp o;
  o.kind = kind;
  o.lane = lane;
  o.start_ns = start;
  o.end_ns = end;
  o.bytes = bytes;
  if (kind == ActivityKind::h2d) o.src_memory = "pinned", o.dst_memory = "device";
  if (kind == ActivityKind::d2h) o.src_memory = "device", o.dst_memory = "pinned";
  if (kind == ActivityKind::kernel) o.name = "scale";
  return o;
}

// Two chunks in a staircase: H2D, kernel, D2H on each stream, the second shifted by one stage,
// plus a 1 ns memset that must still be drawn.
Timeline staircase() {
  Timeline t;
  t.key = "overlapped";
  t.title = "overlapped (2 streams)";
  t.device = 0;
  t.lanes = {{13, "chunk 0"}, {14, "chunk 1"}};
  t.ops = {op(ActivityKind::h2d, 0, 0, 300'000, 16 << 20),       op(ActivityKind::kernel, 0, 300'000, 600'000),
           op(ActivityKind::d2h, 0, 600'000, 900'000, 16 << 20),   op(ActivityKind::h2d, 1, 300'000, 600'000, 16 << 20),
           op(ActivityKind::kernel, 1, 600'000, 900'000),          op(ActivityKind::d2h, 1, 900'000, 1'200'000, 16 << 20),
           op(ActivityKind::memset, 1, 1'000, 1'001, 64)};
  return t;
}

std::string row_of(const std::vector<std::string>& lines, const std::string& lane) {
  for (const auto& l : lines) {
    if (l.rfind(lane, 0) == 0) return l;
  }
  return {};
}

}  // namespace

TEST(TimelineRender, OneLanePerStreamWithAxisAndLegend) {
  const auto lines = render_timeline(staircase(), TimelineStyle{false, 80, {}});
  const std::string lane0 = row_of(lines, "chunk 0");
  const std::string lane1 = row_of(lines, "chunk 1");
  ASSERT_FALSE(lane0.empty());
  ASSERT_FALSE(lane1.empty());
  // The staircase: chunk 1's copy-in starts where chunk 0's kernel starts.
  EXPECT_LT(lane0.find('>'), lane0.find('#'));
  EXPECT_LT(lane0.find('#'), lane0.find('<'));
  EXPECT_EQ(lane1.find('>'), lane0.find('#'));
  EXPECT_EQ(lane1.find('#'), lane0.find('<'));
  // Spans from 10 µs to 10 ms read in µs.
  bool unit_found = false, legend_found = false;
  for (const auto& l : lines) {
    unit_found = unit_found || l.find("µs") != std::string::npos;
    legend_found = legend_found || l.rfind("legend", 0) == 0;
  }
  EXPECT_TRUE(unit_found);
  EXPECT_TRUE(legend_found);
  const std::string all = [&] {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }();
  EXPECT_NE(all.find("> H2D copy"), std::string::npos) << all;
  EXPECT_NE(all.find("# kernel"), std::string::npos) << all;
  EXPECT_NE(all.find("< D2H copy"), std::string::npos) << all;
  EXPECT_NE(all.find("= memset"), std::string::npos) << all;
  EXPECT_EQ(all.find("@ host callback"), std::string::npos) << "only kinds that occur are in the legend";
  EXPECT_EQ(all.find('\x1b'), std::string::npos) << "no colour unless asked";
}

TEST(TimelineRender, TinyOperationsStayVisible) {
  const auto lines = render_timeline(staircase(), TimelineStyle{false, 60, {}});
  EXPECT_NE(row_of(lines, "chunk 1").find('='), std::string::npos) << "a 1 ns memset in a 1.2 ms picture";
}

TEST(TimelineRender, FitsTheWidth) {
  Timeline t = staircase();
  t.lanes[0].name = "a lane name far longer than any label column should be";
  t.ops.push_back(op(ActivityKind::host_callback, 0, 1'150'000, 1'160'000));
  t.ops.push_back(op(ActivityKind::sync, 1, 1'190'000, 1'200'000));
  t.dropped_records = 3;
  for (std::size_t width : {30u, 40u, 80u, 132u, 200u}) {
    for (bool color : {false, true}) {
      for (const auto& line : render_timeline(t, TimelineStyle{color, width, {}})) {
        EXPECT_LE(display_width(line), width) << width << ": " << line;
      }
    }
  }
  const auto lines = render_timeline(t, TimelineStyle{false, 80, {}});
  EXPECT_NE(lines[0].find("…"), std::string::npos) << lines[0];
  EXPECT_NE(lines.back().find("dropped 3 records"), std::string::npos) << lines.back();
}

TEST(TimelineRender, ColourOnlyTints) {
  const auto plain = render_timeline(staircase(), TimelineStyle{false, 80, {}});
  const auto coloured = render_timeline(staircase(), TimelineStyle{true, 80, {}});
  ASSERT_EQ(plain.size(), coloured.size());
  EXPECT_NE(row_of(coloured, "chunk 0").find("\x1b[32m"), std::string::npos);
  for (std::size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(display_width(plain[i]), display_width(coloured[i]));
}

TEST(TimelineRender, EmptyTimelineSaysSo) {
  Timeline t;
  t.lanes = {{7, "stream 7"}};
  const auto lines = render_timeline(t, TimelineStyle{});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("no GPU activity"), std::string::npos);
}

TEST(TimelineRender, AxisUnitsFollowTheSpan) {
  Timeline t;
  t.lanes = {{1, "s"}};
  auto axis_unit_line = [](const std::vector<std::string>& lines) { return lines.at(lines.size() - 2); };
  t.ops = {op(ActivityKind::kernel, 0, 0, 5'000)};
  EXPECT_NE(axis_unit_line(render_timeline(t, {})).find("ns"), std::string::npos);
  t.ops = {op(ActivityKind::kernel, 0, 0, 50'000'000)};
  const std::string ms = axis_unit_line(render_timeline(t, {}));
  EXPECT_NE(ms.find("ms"), std::string::npos) << ms;
  EXPECT_NE(ms.find(" 0 "), std::string::npos) << ms;
  EXPECT_NE(ms.find("50"), std::string::npos) << ms;
}

TEST(TimelineReport, TextDrawsTimelinesOnlyWhenAsked) {
  Report r;
  r.lesson_number = 3;
  r.lesson_slug = slug_of(3);
  r.timelines = {staircase()};
  TextStyle style;
  EXPECT_EQ(render_text(r, style).find("timeline · overlapped"), std::string::npos);
  style.timelines = true;
  const std::string text = render_text(r, style);
  EXPECT_NE(text.find("timeline · overlapped (2 streams)"), std::string::npos) << text;
  EXPECT_NE(text.find("chunk 1"), std::string::npos);
  EXPECT_EQ(render_stable(r).find("chunk"), std::string::npos) << "--stable leaves timelines out";
}

namespace {
// A saved run of lesson 03 with nothing in it yet: what the JSON round trips start from.
Report run_of_lesson_03() {
  Report r;
  r.tool_version = "0.1.0";
  r.recorded_at = "2026-01-01T00:00:00Z";
  r.lesson_number = 3;
  r.lesson_slug = slug_of(3);
  r.lesson_title = "t";
  return r;
}
}  // namespace

TEST(TimelineReport, JsonRoundTrip) {
  Report r = run_of_lesson_03();
  Timeline t = staircase();
  t.notes_key = "timeline";
  t.dropped_records = 2;
  r.timelines = {t};
  const nlohmann::json j = report_to_json(r);
  const Report back = report_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.timelines.size(), 1u);
  const Timeline& b = back.timelines[0];
  EXPECT_EQ(b.key, t.key);
  EXPECT_EQ(b.title, t.title);
  EXPECT_EQ(b.notes_key, "timeline");
  EXPECT_EQ(b.dropped_records, 2u);
  ASSERT_EQ(b.lanes.size(), 2u);
  EXPECT_EQ(b.lanes[1].stream_id, 14u);
  EXPECT_EQ(b.lanes[1].name, "chunk 1");
  ASSERT_EQ(b.ops.size(), t.ops.size());
  for (std::size_t i = 0; i < t.ops.size(); ++i) {
    EXPECT_EQ(b.ops[i].kind, t.ops[i].kind);
    EXPECT_EQ(b.ops[i].lane, t.ops[i].lane);
    EXPECT_EQ(b.ops[i].start_ns, t.ops[i].start_ns);
    EXPECT_EQ(b.ops[i].end_ns, t.ops[i].end_ns);
    EXPECT_EQ(b.ops[i].bytes, t.ops[i].bytes);
    EXPECT_EQ(b.ops[i].name, t.ops[i].name);
    EXPECT_EQ(b.ops[i].src_memory, t.ops[i].src_memory);
    EXPECT_EQ(b.ops[i].dst_memory, t.ops[i].dst_memory);
  }
  EXPECT_EQ(report_to_json(back), j);

  nlohmann::json older = j;  // runs recorded before timelines existed still load
  older.erase("timelines");
  EXPECT_TRUE(report_from_json(older).timelines.empty());
  nlohmann::json bad = j;
  bad["timelines"][0]["ops"][0]["kind"] = "teleport";
  EXPECT_THROW(report_from_json(bad), UsageError);
  bad = j;
  bad["timelines"][0]["ops"][0]["lane"] = 9;
  EXPECT_THROW(report_from_json(bad), UsageError);
}

// A run on managed memory: a kernel whose first touches fault, the driver's migrations in their
// own lanes, and a CPU fault (an instant) when the host reads the result back.
Timeline faulting_run() {
  Timeline t;
  t.key = "on-demand";
  t.title = "on demand";
  t.lanes = {{13, "kernel"}, {0xFFFFFFFEu, "page faults"}, {0xFFFFFFFDu, "page migrations"}};
  t.ops = {op(ActivityKind::kernel, 0, 0, 900'000), op(ActivityKind::page_fault, 1, 10'000, 40'000),
           op(ActivityKind::migration_h2d, 2, 40'000, 400'000, 2 << 20),
           op(ActivityKind::migration_d2h, 2, 950'000, 1'200'000, 64 << 10), op(ActivityKind::page_fault, 1, 940'000, 940'000)};
  t.ops[3].name = "page migration: on a fault";
  return t;
}

TEST(TimelineRender, UnifiedMemoryKindsHaveGlyphsAndLegend) {
  const auto lines = render_timeline(faulting_run(), TimelineStyle{false, 80, {}});
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_NE(row_of(lines, "page faults").find('!'), std::string::npos) << all;
  EXPECT_NE(row_of(lines, "page migrations").find('}'), std::string::npos) << all;
  EXPECT_NE(row_of(lines, "page migrations").find('{'), std::string::npos) << all;
  EXPECT_NE(all.find("! page fault"), std::string::npos) << all;
  EXPECT_NE(all.find("} H2D page migration"), std::string::npos) << all;
  EXPECT_NE(all.find("{ D2H page migration"), std::string::npos) << all;
  for (const auto& line : render_timeline(faulting_run(), TimelineStyle{true, 60, {}})) {
    EXPECT_LE(display_width(line), 60u) << line;
  }
}

TEST(TimelineReport, UnifiedMemoryKindsSurviveJsonAndTrace) {
  Report r = run_of_lesson_03();
  r.timelines = {faulting_run()};
  const Report back = report_from_json(nlohmann::json::parse(report_to_json(r).dump()));
  ASSERT_EQ(back.timelines.at(0).ops.size(), faulting_run().ops.size());
  for (std::size_t i = 0; i < back.timelines[0].ops.size(); ++i) {
    EXPECT_EQ(back.timelines[0].ops[i].kind, faulting_run().ops[i].kind) << i;
  }
  const auto names_in = [](Lang lang) {
    std::set<std::string> names;
    const nlohmann::json trace = chrome_trace_json({faulting_run()}, TraceWords{lang, {}});  // kept: a range-for
    for (const auto& e : trace["traceEvents"]) {  // over a temporary's member dangles
      if (e["ph"] == "X") names.insert(e["name"].get<std::string>());
    }
    return names;
  };
  // A kernel keeps its symbol; an unnamed operation is named as the legend names its kind; a
  // migration's cause is our words, in the student's language.
  EXPECT_EQ(names_in(Lang::en), (std::set<std::string>{"scale", "page fault", "H2D page migration", "page migration: on a fault"}));
  EXPECT_EQ(names_in(Lang::zh), (std::set<std::string>{"scale", "缺页", "H2D 页迁移", "页迁移：因缺页"}));
}

// A run from a file names its operations as it likes: a fault named with braces is translated as
// a template would be, and a placeholder without an argument stays as it is written.
TEST(ChromeTrace, AnOperationNamedWithBracesIsWrittenAsItIs) {
  Timeline t = faulting_run();
  t.ops[1].name = "{count} faults {";
  for (const Lang lang : {Lang::en, Lang::zh}) {
    const nlohmann::json trace = chrome_trace_json({t}, TraceWords{lang, {}});
    std::size_t found = 0;
    for (const auto& e : trace["traceEvents"]) found += e["name"] == "{count} faults {" ? 1 : 0;
    EXPECT_EQ(found, 1u);
  }
}

TEST(ChromeTrace, EventsInMicrosecondsOneTidPerStream) {
  Timeline second = staircase();
  second.title = "sequential";
  second.lanes = {{7, "default"}};
  for (auto& o : second.ops) o.lane = 0;
  const nlohmann::json trace = nlohmann::json::parse(chrome_trace_json({staircase(), second}).dump());
  ASSERT_TRUE(trace.contains("traceEvents"));
  std::set<std::pair<int, std::uint32_t>> tids_with_names;
  std::set<std::pair<int, std::uint32_t>> tids_with_events;
  std::size_t complete = 0;
  bool found_first_kernel = false;
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e;
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      tids_with_names.insert({e["pid"].get<int>(), e["tid"].get<std::uint32_t>()});
      EXPECT_TRUE(e["args"]["name"].is_string());
    }
    if (e["ph"] != "X") continue;
    ++complete;
    for (const char* field : {"ts", "dur", "tid", "cat", "args"}) EXPECT_TRUE(e.contains(field)) << field << e;
    tids_with_events.insert({e["pid"].get<int>(), e["tid"].get<std::uint32_t>()});
    if (e["pid"] == 0 && e["cat"] == "kernel" && e["tid"] == 13) {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 300.0);  // 300,000 ns
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 300.0);
      EXPECT_EQ(e["name"], "scale");
      found_first_kernel = true;
    }
    if (e["cat"] == "h2d") {
      EXPECT_EQ(e["args"]["bytes"], 16 << 20);
      EXPECT_EQ(e["args"]["kind"], "h2d");
      EXPECT_EQ(e["args"]["src_memory"], "pinned");
    }
    if (e["cat"] == "memset") {
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 0.001);
    }
  }
  EXPECT_EQ(complete, 2 * staircase().ops.size());
  EXPECT_TRUE(found_first_kernel);
  EXPECT_EQ(tids_with_events, tids_with_names) << "every lane named, every stream its own tid";
  EXPECT_EQ(tids_with_names.size(), 3u);
  EXPECT_EQ(tids_with_names.count({100, 7}), 1u) << "the second timeline is kept apart by its pid";
}

TEST(ChromeTrace, WriterFailsWithOneUsageLine) {
  const std::string path = testing::TempDir() + "cudalab_trace.json";
  write_chrome_trace(path, {staircase()});
  std::ifstream in(path);
  EXPECT_TRUE(nlohmann::json::accept(in));
  try {
    write_chrome_trace("/nonexistent-dir/t.json", {staircase()});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--trace"), std::string::npos);
  }
}

TEST(TimelineFlags, UnwritableTracePathIsAUsageErrorBeforeTheRun) {
  const std::string lesson = slug_of(1);  // argv points into it until run_cli returns
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const char* argv[] = {"cudalab", lesson.c_str(), "--trace", "/nonexistent-dir/t.json"};
  const int code = run_cli(4, argv);
  (void)testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, to_int(ExitCode::usage)) << err;
  EXPECT_NE(err.find("--trace"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << "one line: " << err;
}

TEST(CuptiRecords, ChosenStructVersionsExposeTheFieldsWeRead) {
  // Compiling this test is most of the check: every field trace_session.cpp reads must exist.
  cupti::KernelRecord kernel{};
  cupti::MemcpyRecord copy{};
  cupti::MemsetRecord memset{};
  cupti::SyncRecord sync{};
  cupti::UnifiedMemoryRecord unified{};
  EXPECT_EQ(kernel.start + kernel.end + kernel.deviceId + kernel.streamId, 0u);
  EXPECT_EQ(kernel.name, nullptr);
  EXPECT_EQ(copy.copyKind + copy.srcKind + copy.dstKind + copy.bytes + copy.deviceId + copy.streamId, 0u);
  EXPECT_EQ(memset.bytes + memset.memoryKind + memset.deviceId + memset.streamId, 0u);
  EXPECT_EQ(sync.start + sync.end + sync.streamId, 0u);
  EXPECT_EQ(unified.counterKind + unified.value + unified.start + unified.end + unified.flags, 0u);
  static_assert(offsetof(cupti::KernelRecord, kind) == 0, "every record starts with its kind");
  static_assert(offsetof(cupti::MemcpyRecord, kind) == 0, "every record starts with its kind");
  EXPECT_NE(std::string(cupti::kRecordVersions).find("Kernel"), std::string::npos);
#if CUPTI_API_VERSION >= 130000
  EXPECT_EQ(std::string(cupti::kRecordVersions), "Kernel10, Memcpy6, Memset4, Synchronization2, UnifiedMemoryCounter3");
#endif
}
