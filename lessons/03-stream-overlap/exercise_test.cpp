// Lesson 03's exercise without a GPU: what the findings read off made-up timelines (one stream,
// the missing wait, host waits, the legacy stream, uploads first), the checks and status of the
// report, and the child's result read as untrusted input.
#include <gtest/gtest.h>

#include "common/core/errors.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/workspace.hpp"
#include "common/report/render.hpp"
#include "common/report/translate.hpp"
#include "exercise_report.hpp"

using namespace cudalab;
using namespace cudalab::stream_overlap;

namespace {

constexpr std::uint64_t kChunk = 1 << 20;

PipelineRequest request(int chunks, int streams) { return PipelineRequest{chunks * kChunk, chunks, streams, 100, {}}; }

// A result with `lanes` bench lanes, the legacy lane after them, and no operations yet.
PipelineResult result_with(int chunks, int lanes) {
  PipelineResult r;
  r.ms = {1.0, 1.0, 1.0};
  r.chunk_bytes.assign(static_cast<std::size_t>(chunks), kChunk);
  r.wrong_by_chunk.assign(static_cast<std::size_t>(chunks), 0);
  r.bench_lanes = lanes;
  Timeline t;
  for (int l = 0; l < lanes; ++l) t.lanes.push_back({static_cast<std::uint32_t>(l), msg("stream {id}", arg("id", l))});
  t.lanes.push_back({99, kLegacyLane});
  t.lanes.push_back({100, "host waits"});
  r.timeline = t;
  return r;
}

void add(PipelineResult& r, ActivityKind kind, std::size_t lane, std::int64_t start, std::int64_t end, int chunk,
         std::string name = {}) {
  TimelineOp op;
  op.kind = kind;
  op.lane = lane;
  op.start_ns = start;
  op.end_ns = end;
  op.name = std::move(name);
  r.timeline->ops.push_back(op);
  r.chunk_of_op.push_back(chunk);
}

// Chunk c as depth-first runs it on `lane`, starting at `t`: upload, kernel, download, 10 ns each.
void add_chunk(PipelineResult& r, int c, std::size_t lane, std::int64_t t) {
  add(r, ActivityKind::h2d, lane, t, t + 10, c);
  add(r, ActivityKind::kernel, lane, t + 10, t + 20, c);
  add(r, ActivityKind::d2h, lane, t + 20, t + 30, c);
}

std::vector<std::string> keys(const std::vector<Finding>& found) {
  std::vector<std::string> k;
  for (const auto& f : found) k.push_back(f.key);
  return k;
}

TEST(PipelineFindings, DepthFirstOverStreamsSaysNothing) {
  PipelineResult r = result_with(4, 2);
  for (int c = 0; c < 4; ++c) add_chunk(r, c, static_cast<std::size_t>(c % 2), 10 * c);
  EXPECT_TRUE(read_pipeline(r, request(4, 2)).empty());
}

TEST(PipelineFindings, OneStreamIsNamed) {
  PipelineResult r = result_with(4, 4);
  for (int c = 0; c < 4; ++c) add_chunk(r, c, 0, 30 * c);
  const auto found = read_pipeline(r, request(4, 4));
  ASSERT_EQ(keys(found), std::vector<std::string>({"one_stream"}));
  EXPECT_EQ(found[0].line.en(), "all your work went to one stream: your 4 chunks ran one after another, and nothing "
                                "could overlap (you have 4 streams)");
  EXPECT_TRUE(found[0].stable);
}

TEST(PipelineFindings, TheMissingWaitNamesTheChunkAndItsWrongBytes) {
  PipelineResult r = result_with(2, 2);
  add_chunk(r, 0, 0, 0);
  add(r, ActivityKind::h2d, 1, 0, 50, 1);
  add(r, ActivityKind::kernel, 0, 20, 30, 1);  // on another stream, before its upload ended
  add(r, ActivityKind::d2h, 1, 50, 60, 1);
  r.wrong_by_chunk[1] = kChunk;
  const auto found = read_pipeline(r, request(2, 2));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].key, "wrong_chunk_1");
  EXPECT_EQ(found[0].line.en(), "chunk 1's kernel read its input before its upload finished: 1,048,576 bytes wrong");
  EXPECT_FALSE(found[0].stable);  // a race's bytes are not the grader's to diff
}

TEST(PipelineFindings, AMissingDownloadAndUntaggedBytesAreSaid) {
  PipelineResult r = result_with(2, 2);
  add_chunk(r, 0, 0, 0);
  add(r, ActivityKind::h2d, 1, 0, 10, 1);
  add(r, ActivityKind::kernel, 1, 10, 20, 1);
  r.wrong_by_chunk[1] = 7;
  EXPECT_EQ(read_pipeline(r, request(2, 2))[0].line.en(), "chunk 1 was never downloaded: 7 bytes wrong");
  r.chunk_of_op.assign(r.chunk_of_op.size(), -1);  // no call was tied to its operation: no guess either
  EXPECT_EQ(read_pipeline(r, request(2, 2))[0].line.en(), "7 bytes of chunk 1 are wrong");
  r.timeline.reset();
  r.chunk_of_op.clear();
  EXPECT_EQ(read_pipeline(r, request(2, 2))[0].line.en(), "7 bytes of chunk 1 are wrong");
}

TEST(PipelineFindings, HostWaitsInsideThePipelineAreCountedByCall) {
  PipelineResult r = result_with(8, 4);
  for (int c = 0; c < 8; ++c) {
    add_chunk(r, c, static_cast<std::size_t>(c % 4), 40 * c);
    add(r, ActivityKind::sync, 5, 40 * c + 30, 40 * c + 35, -1, "cudaDeviceSynchronize");
  }
  add(r, ActivityKind::sync, 5, 500, 501, -1, "cudaStreamWaitEvent");  // a GPU-side wait: no host wait
  const auto found = read_pipeline(r, request(8, 4));
  ASSERT_EQ(keys(found), std::vector<std::string>({"host_waits_cudaDeviceSynchronize"}));
  EXPECT_EQ(found[0].line.en(), "you called cudaDeviceSynchronize inside the pipeline: the host waited 8 times");
}

TEST(PipelineFindings, TheLegacyDefaultStreamAndAStreamOfYourOwnAreNamed) {
  PipelineResult r = result_with(2, 2);
  add_chunk(r, 0, 2, 0);  // lane 2: the legacy default stream
  r.timeline->lanes.push_back({7, "stream 7"});
  add_chunk(r, 1, 4, 30);  // a stream the bench did not give
  const auto k = keys(read_pipeline(r, request(2, 2)));
  EXPECT_NE(std::find(k.begin(), k.end(), "legacy_stream"), k.end());
  EXPECT_NE(std::find(k.begin(), k.end(), "own_stream"), k.end());
}

TEST(PipelineFindings, UploadsBeforeAnyKernelAndBreadthFirstOnAStream) {
  PipelineResult r = result_with(4, 2);
  for (int c = 0; c < 4; ++c) add(r, ActivityKind::h2d, static_cast<std::size_t>(c % 2), 10 * c, 10 * c + 10, c);
  for (int c = 0; c < 4; ++c) add(r, ActivityKind::kernel, static_cast<std::size_t>(c % 2), 40 + 10 * c, 50 + 10 * c, c);
  auto found = read_pipeline(r, request(4, 2));
  ASSERT_EQ(keys(found), std::vector<std::string>({"uploads_first"}));
  EXPECT_EQ(found[0].line.en(), "your 4 uploads ran back to back before any kernel started: no kernel overlapped an upload");

  // Kernel 0 starts while upload 3 still runs, yet waited on its stream behind upload 2.
  PipelineResult b = result_with(4, 2);
  for (int c = 0; c < 4; ++c) add(b, ActivityKind::h2d, static_cast<std::size_t>(c % 2), 10 * c, 10 * c + 10, c);
  add(b, ActivityKind::kernel, 0, 30, 40, 0);
  found = read_pipeline(b, request(4, 2));
  ASSERT_EQ(keys(found), std::vector<std::string>({"breadth_first"}));
  EXPECT_NE(found[0].line.en().find("chunk 0's kernel waited"), std::string::npos);
}

TEST(PipelineResultJson, RoundTripsAndRefusesWhatIsNotOne) {
  PipelineResult r = result_with(2, 2);
  add_chunk(r, 0, 0, 0);
  add_chunk(r, 1, 1, 0);
  r.wrong_by_chunk[1] = 3;
  const PipelineResult back = result_from_json(result_to_json(r));
  EXPECT_EQ(back.ms, r.ms);
  EXPECT_EQ(back.wrong_by_chunk, r.wrong_by_chunk);
  EXPECT_EQ(back.chunk_of_op, r.chunk_of_op);
  ASSERT_TRUE(back.timeline.has_value());
  EXPECT_EQ(back.timeline->ops.size(), r.timeline->ops.size());
  nlohmann::json bad = result_to_json(r);
  bad["wrong_by_chunk"] = {1};  // one count for two chunks
  EXPECT_THROW(result_from_json(bad), UsageError);
  bad = result_to_json(r);
  bad["ms"] = "fast";
  EXPECT_THROW(result_from_json(bad), UsageError);
  EXPECT_THROW(request_from_json("{\"size\": 1}"), UsageError);
}

// The lab's yardstick as a made-up run measured it: one stream 3 ms, depth-first 1.5 ms (2×).
Measurements lab_run() {
  Measurements m;
  m.copy_engines = 2;
  m.chunk_count = 4;
  m.largest_chunk = m.smallest_chunk = kChunk;
  m.iters = 100;
  m.h2d_pinned = m.kernel = m.d2h_pinned = std::vector<double>(5, 0.25);
  m.runs[Variant::sequential].ms = std::vector<double>(5, 3.0);
  m.runs[Variant::depth_first].ms = std::vector<double>(5, 1.5);
  m.runs[Variant::sequential].bytes.add(4 * kChunk, 4 * kChunk);
  m.runs[Variant::depth_first].bytes.add(4 * kChunk, 4 * kChunk);
  m.depth_first_speedups = std::vector<double>(5, 2.0);
  return m;
}

StudentRun ran_with(const PipelineResult& r) {
  StudentRun s;
  s.result = result_to_json(r);
  return s;
}

Report report_for(const StudentRun& student) {
  Params p;
  p.size = 4 * kChunk;
  p.streams = 2;
  StudentBuild build;
  build.exercise_id = "03-stream-overlap";
  build.source_text = "my pipeline";
  return build_exercise_report(p, lab_run(), student, build);
}

TEST(PipelineReport, DoneAtNinetyPercentOfTheLabsSpeedupWithEveryByteRight) {
  PipelineResult r = result_with(4, 2);
  r.ms = std::vector<double>(5, 1.6);  // 1.875×: 94% of the lab's 2×
  EXPECT_EQ(status_of_run(report_for(ran_with(r))), ExerciseStatus::done);
  r.ms = std::vector<double>(5, 1.8);  // 1.67×: 83%
  EXPECT_EQ(status_of_run(report_for(ran_with(r))), ExerciseStatus::correct_but_slow);
  r.ms = std::vector<double>(5, 1.5);
  r.wrong_by_chunk[2] = 1;
  const Report wrong = report_for(ran_with(r));
  EXPECT_EQ(status_of_run(wrong), ExerciseStatus::wrong_result);
  EXPECT_FALSE(wrong.verify_passed());
  ASSERT_TRUE(wrong.exercise.has_value());
  EXPECT_EQ(wrong.exercise->source, "my pipeline");
  EXPECT_EQ(wrong.exercise->source_digest, source_digest("my pipeline"));
}

TEST(PipelineReport, AVerdictEndsTheRunAndTheLabStillReports) {
  StudentRun crashed;
  crashed.verdict = StudentVerdict::crashed;
  crashed.words = "your pipeline() crashed with SIGSEGV";
  const Report r = report_for(crashed);
  EXPECT_EQ(status_of_run(r), ExerciseStatus::does_not_run);
  EXPECT_NE(r.find_metric("exercise.lab"), nullptr);  // the lab's own variants were measured all the same
  EXPECT_EQ(r.find_metric("exercise.yours"), nullptr);
  bool said = false;
  for (const auto& c : r.checks) said |= c.key == kExerciseRanCheck && c.summary.en() == crashed.words.en();
  EXPECT_TRUE(said);
}

}  // namespace

// Every word of an exercise's report has its Chinese: each finding, each verdict, the timeline's
// lanes, rendered in zh under the catalogue's audit (builder literals included, which xgettext
// does not collect).
namespace {

TEST(PipelineReport, EveryFormInChineseHasItsEntry) {
  const TranslationAudit audit;
  TextStyle zh;
  zh.lang = Lang::zh;
  zh.timelines = true;
  std::vector<StudentRun> runs;
  PipelineResult r = result_with(4, 2);  // every finding at once
  add_chunk(r, 0, 0, 0);
  add(r, ActivityKind::h2d, 1, 0, 50, 1);
  add(r, ActivityKind::kernel, 0, 20, 30, 1);
  add(r, ActivityKind::d2h, 1, 50, 60, 1);
  add(r, ActivityKind::h2d, 1, 0, 10, 2);
  add(r, ActivityKind::kernel, 1, 10, 20, 2);
  add(r, ActivityKind::h2d, 2, 0, 10, 3);
  add(r, ActivityKind::sync, 5, 1, 2, -1, "cudaStreamSynchronize");
  r.timeline->lanes.push_back({7, "stream 7"});
  add(r, ActivityKind::kernel, 4, 70, 80, 3);
  r.wrong_by_chunk = {0, 5, 6, 7};
  runs.push_back(ran_with(r));
  r.timeline.reset();
  r.chunk_of_op.clear();
  r.no_timeline = "CUPTI could not be used in this process";
  runs.push_back(ran_with(r));
  for (const auto verdict : {StudentVerdict::crashed, StudentVerdict::timed_out, StudentVerdict::cuda_error}) {
    StudentRun s;
    s.verdict = verdict;
    s.words = msg("your {function} crashed with {signal}", arg("function", std::string("pipeline()")),
                  arg("signal", std::string("SIGSEGV")));
    s.output = "a line the student printed\n";
    runs.push_back(s);
  }
  for (const auto& run : runs) {
    Report report = report_for(run);
    report.lesson_number = 3;  // as the run's stamp names it: its notes and catalogue
    report.lesson_slug = "stream-overlap";
    EXPECT_FALSE(render_text(report, zh).empty());
  }
  EXPECT_GT(audit.looked_up(), 50u);
  for (const auto& templ : audit.missing()) ADD_FAILURE() << "no Chinese for the template: " << templ;
}

}  // namespace
