#include "exercise_report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/stats.hpp"
#include "common/core/text_format.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/workspace.hpp"
#include "common/report/builder.hpp"
#include "common/report/json_field.hpp"
#include "common/report/timeline_json.hpp"
#include "model.hpp"

namespace cudalab::stream_overlap {

namespace {

// At most this many wrong chunks are named one by one; the rest are counted.
constexpr std::size_t kNamedWrongChunks = 3;

bool is_copy_or_kernel(ActivityKind k) {
  return k == ActivityKind::h2d || k == ActivityKind::d2h || k == ActivityKind::kernel;
}

// The first operation of `kind` that moved or computed chunk `c`; null when none did.
const TimelineOp* first_op(const PipelineResult& r, ActivityKind kind, int c) {
  if (!r.timeline) return nullptr;
  const TimelineOp* found = nullptr;
  for (std::size_t i = 0; i < r.timeline->ops.size() && i < r.chunk_of_op.size(); ++i) {
    const TimelineOp& op = r.timeline->ops[i];
    if (op.kind == kind && r.chunk_of_op[i] == c && (found == nullptr || op.start_ns < found->start_ns)) found = &op;
  }
  return found;
}

// Why chunk c came back wrong, as its operations in the timeline show it.
Message why_wrong(const PipelineResult& r, int c, std::uint64_t wrong) {
  const auto bytes = arg("bytes", format_count(wrong));
  const auto chunk = arg("chunk", c);
  const bool tagged = std::any_of(r.chunk_of_op.begin(), r.chunk_of_op.end(), [](int tag) { return tag >= 0; });
  if (r.timeline && tagged) {
    const TimelineOp* up = first_op(r, ActivityKind::h2d, c);
    const TimelineOp* kernel = first_op(r, ActivityKind::kernel, c);
    const TimelineOp* down = first_op(r, ActivityKind::d2h, c);
    if (up == nullptr) return msg("chunk {chunk} was never uploaded: {bytes} bytes wrong", chunk, bytes);
    if (kernel == nullptr) return msg("chunk {chunk} never went through the kernel: {bytes} bytes wrong", chunk, bytes);
    if (down == nullptr) return msg("chunk {chunk} was never downloaded: {bytes} bytes wrong", chunk, bytes);
    if (kernel->start_ns < up->end_ns) {
      return msg("chunk {chunk}'s kernel read its input before its upload finished: {bytes} bytes wrong", chunk, bytes);
    }
    if (down->start_ns < kernel->end_ns) {
      return msg("chunk {chunk}'s download started before its kernel finished: {bytes} bytes wrong", chunk, bytes);
    }
  }
  return msg("{bytes} bytes of chunk {chunk} are wrong", bytes, chunk);
}

void find_wrong_chunks(const PipelineResult& r, std::vector<Finding>& found) {
  std::vector<int> wrong;
  for (std::size_t c = 0; c < r.wrong_by_chunk.size(); ++c) {
    if (r.wrong_by_chunk[c] > 0) wrong.push_back(static_cast<int>(c));
  }
  for (std::size_t i = 0; i < wrong.size() && i < kNamedWrongChunks; ++i) {
    // A race's bytes differ from run to run: not for the grader's diff.
    found.push_back({fmt::format("wrong_chunk_{}", wrong[i]), why_wrong(r, wrong[i], r.wrong_by_chunk[wrong[i]]), false});
  }
  if (wrong.size() > kNamedWrongChunks) {
    found.push_back({"wrong_chunks_more",
                     msg("and {count} more chunks came back wrong", arg("count", wrong.size() - kNamedWrongChunks)),
                     false});
  }
}

// The lanes the student's copies and kernels ran on: the bench's, the legacy stream's, others'.
void find_streams(const PipelineResult& r, const PipelineRequest& q, std::vector<Finding>& found) {
  std::map<std::size_t, int> bench, legacy, own;
  for (const auto& op : r.timeline->ops) {
    if (!is_copy_or_kernel(op.kind)) continue;
    const bool is_bench = op.lane < static_cast<std::size_t>(r.bench_lanes);
    const bool is_legacy = !is_bench && r.timeline->lanes[op.lane].name.en() == kLegacyLane;
    ++(is_bench ? bench : is_legacy ? legacy : own)[op.lane];
  }
  if (bench.size() == 1 && q.streams > 1 && legacy.empty() && own.empty() && q.chunks > 1) {
    found.push_back({"one_stream",
                     msg("all your work went to one stream: your {chunks} chunks ran one after another, and nothing "
                         "could overlap (you have {streams} streams)",
                         arg("chunks", q.chunks), arg("streams", q.streams))});
  }
  auto total = [](const std::map<std::size_t, int>& lanes) {
    int n = 0;
    for (const auto& [lane, count] : lanes) n += count;
    return n;
  };
  if (!legacy.empty()) {
    found.push_back({"legacy_stream", msg("{count} of your copies and kernels ran on the legacy default stream "
                                          "(stream 0): it waits for every stream the bench gave you, and they for it",
                                          arg("count", total(legacy)))});
  }
  if (!own.empty()) {
    found.push_back({"own_stream", msg("{count} of your copies and kernels ran on a stream of your own: use "
                                       "lab.streams, which the bench's clock waits for",
                                       arg("count", total(own)))});
  }
}

void find_host_waits(const PipelineResult& r, std::vector<Finding>& found) {
  std::map<std::string, int> waits;
  for (const auto& op : r.timeline->ops) {
    if (op.kind == ActivityKind::sync && op.name != "cudaStreamWaitEvent") ++waits[op.name];
  }
  for (const auto& [call, count] : waits) {
    found.push_back({"host_waits_" + call, msg("you called {call} inside the pipeline: the host waited {count} times",
                                               arg("call", call), arg("count", count))});
  }
}

// Uploads that ran back to back: every upload before any kernel (one stream, or breadth-first
// with one hardware queue), or on some stream a kernel that waited for a later chunk's upload.
void find_back_to_back(const PipelineResult& r, std::vector<Finding>& found) {
  const auto& ops = r.timeline->ops;
  std::int64_t first_kernel = INT64_MAX, last_upload = INT64_MIN;
  int uploads = 0;
  for (const auto& op : ops) {
    if (op.kind == ActivityKind::kernel) first_kernel = std::min(first_kernel, op.start_ns);
    if (op.kind == ActivityKind::h2d) last_upload = std::max(last_upload, op.end_ns), ++uploads;
  }
  if (uploads >= 2 && first_kernel != INT64_MAX && last_upload <= first_kernel) {
    found.push_back({"uploads_first", msg("your {count} uploads ran back to back before any kernel started: no kernel "
                                          "overlapped an upload",
                                          arg("count", uploads))});
    return;
  }
  for (int lane = 0; lane < r.bench_lanes; ++lane) {
    std::vector<std::size_t> on_lane;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (static_cast<int>(ops[i].lane) == lane && is_copy_or_kernel(ops[i].kind)) on_lane.push_back(i);
    }
    std::sort(on_lane.begin(), on_lane.end(), [&](std::size_t a, std::size_t b) { return ops[a].start_ns < ops[b].start_ns; });
    int uploads_before = 0;
    for (std::size_t i : on_lane) {
      if (ops[i].kind == ActivityKind::h2d) ++uploads_before;
      if (ops[i].kind != ActivityKind::kernel) continue;
      if (uploads_before >= 2 && i < r.chunk_of_op.size()) {
        found.push_back({"breadth_first", msg("your uploads ran ahead of the kernels on each stream (breadth-first): "
                                              "chunk {chunk}'s kernel waited for the uploads queued before it on its "
                                              "stream",
                                              arg("chunk", r.chunk_of_op[i]))});
        return;
      }
      break;
    }
  }
}

}  // namespace

nlohmann::json request_to_json(const PipelineRequest& r) {
  return {{"size", r.size}, {"chunks", r.chunks}, {"streams", r.streams}, {"iters", r.iters},
          {"warmup", r.reps.warmup}, {"repeat", r.reps.repeat}};
}

PipelineRequest request_from_json(const std::string& text) {
  const nlohmann::json j = parse_untrusted_json(text, "the exercise's request");
  const JsonField f(j, "");
  PipelineRequest r;
  r.size = f.at("size").count();
  r.chunks = static_cast<int>(f.at("chunks").integer(1, 1024));
  r.streams = static_cast<int>(f.at("streams").integer(1, 64));
  r.iters = static_cast<int>(f.at("iters").integer(1, kMaxKernelIters));
  r.reps.warmup = static_cast<int>(f.at("warmup").integer(0, 100000));
  r.reps.repeat = static_cast<int>(f.at("repeat").integer(1, 100000));
  r.reps.adaptive = false;
  return r;
}

nlohmann::json result_to_json(const PipelineResult& r) {
  nlohmann::json j{{"ms", r.ms},
                   {"chunk_bytes", r.chunk_bytes},
                   {"wrong_by_chunk", r.wrong_by_chunk},
                   {"chunk_of_op", r.chunk_of_op},
                   {"bench_lanes", r.bench_lanes},
                   {"no_timeline", r.no_timeline}};
  if (r.timeline) j["timeline"] = *r.timeline;
  return j;
}

PipelineResult result_from_json(const nlohmann::json& j) {
  const JsonField f(j, "");
  PipelineResult r;
  r.ms = f.at("ms").numbers();
  f.at("chunk_bytes").each([&](const JsonField& e) { r.chunk_bytes.push_back(e.count()); });
  f.at("wrong_by_chunk").each([&](const JsonField& e) { r.wrong_by_chunk.push_back(e.count()); });
  f.at("chunk_of_op").each([&](const JsonField& e) { r.chunk_of_op.push_back(static_cast<int>(e.integer(-1, 1024))); });
  r.bench_lanes = static_cast<int>(f.at("bench_lanes").integer(0, 64));
  r.no_timeline = f.at("no_timeline").text();
  if (const auto t = f.find("timeline")) r.timeline = read_timeline(*t);
  if (r.wrong_by_chunk.size() != r.chunk_bytes.size()) f.at("wrong_by_chunk").fail("one count per chunk expected");
  return r;
}

std::vector<Finding> read_pipeline(const PipelineResult& result, const PipelineRequest& request) {
  std::vector<Finding> found;
  find_wrong_chunks(result, found);
  if (!result.timeline) return found;
  find_streams(result, request, found);
  find_host_waits(result, found);
  find_back_to_back(result, found);
  return found;
}

namespace {

using Outcome = StudentOutcome<PipelineResult>;

Outcome outcome_of(const StudentRun& student) {
  return cudalab::outcome_of<PipelineResult>(student, "pipeline()", result_from_json,
                                             [](const PipelineResult& r) { return !r.ms.empty(); });
}

void add_yardstick(ReportBuilder& b, const Params& p, const Measurements& lab, const Outcome& o,
                   const StudentBuild& build) {
  const double model_ms = predict_variant_ms(Variant::depth_first, p, lab, lab.hardware_queues);
  auto s = b.section("exercise", "your pipeline beside the lab's", "exercise");
  s.fact("file", "your file", verbatim(build.source_path), msg("compiled in {seconds} s", arg("seconds", fmt::format("{:.1f}", build.compile_s))), false);
  s.fact("chunking", "chunks",
         msg("{chunks} chunks over {streams} streams, {iters} kernel iterations per byte", arg("chunks", lab.chunk_count),
             arg("streams", p.streams), arg("iters", lab.iters)),
         {}, p.kernel_iters != 0);
  s.metric(measured("exercise.sequential", "the lab's one stream (whole buffer)", "ms", lab.runs.at(Variant::sequential).ms));
  s.metric(measured("exercise.lab", "the lab's depth-first pipeline", "ms", lab.runs.at(Variant::depth_first).ms)
               .with_prediction(model_ms));
  s.metric(derived("exercise.speedup.lab", "the lab's speed-up over one stream", "x", median_of(lab.depth_first_speedups)));
  if (!o.ran) return;
  const double yours = median_of(o.result.ms);
  s.metric(measured("exercise.yours", "your pipeline", "ms", o.result.ms).with_prediction(model_ms)
               .with_note("the model's figure is the depth-first pipeline's"));
  s.metric(derived("exercise.speedup.yours", "your speed-up over one stream", "x",
                   median_of(lab.runs.at(Variant::sequential).ms) / yours)
               .from({"exercise.sequential", "exercise.yours"}));
}

void add_findings(ReportBuilder& b, const Outcome& o, const PipelineRequest& q, const StudentRun& student) {
  auto s = b.section("findings", "what the GPU did with your code", "exercise_findings");
  if (!o.ran) s.fact("verdict", "verdict", o.verdict);
  if (o.ran && !o.result.timeline) {
    s.fact("no_timeline", "timeline", msg("none: {why}; the findings come from the results alone",
                                           arg("why", verbatim(o.result.no_timeline))), {}, false);
  }
  if (o.ran) {
    for (const auto& f : read_pipeline(o.result, q)) s.fact(f.key, "finding", f.line, {}, f.stable);
  }
  if (!student.output.empty()) {
    std::vector<ArtPiece> printed{ArtPiece{false, "your code printed (the last lines):", {}}};
    std::size_t start = 0;
    while (start < student.output.size()) {
      const std::size_t end = std::min(student.output.find('\n', start), student.output.size());
      printed.push_back(ArtPiece{false, verbatim("  " + printable_value(student.output.substr(start, end - start), 160)), {}});
      start = end + 1;
    }
    s.art(std::move(printed));
  }
}

}  // namespace

Report build_exercise_report(const Params& p, const Measurements& lab, const StudentRun& student,
                             const StudentBuild& build) {
  const Outcome o = outcome_of(student);
  const PipelineRequest q{p.size, lab.chunk_count, p.streams, lab.iters, {}};
  ReportBuilder b(flags().params(p));
  b.resolve_param("chunks", std::to_string(lab.chunk_count), true);
  b.resolve_param("kernel-iters", std::to_string(lab.iters), p.kernel_iters != 0);
  add_yardstick(b, p, lab, o, build);
  add_findings(b, o, q, student);
  b.verify("depth_first", lab.runs.at(Variant::depth_first).bytes, Counted::bytes, "the lab's depth-first pipeline");
  b.verify(kExerciseRanCheck, o.ran, o.ran ? Message("your pipeline() ran to its end") : o.verdict);
  Tally bytes;
  std::uint64_t wrong = 0;
  for (auto w : o.result.wrong_by_chunk) wrong += w;
  bytes.add(o.ran ? p.size - std::min<std::uint64_t>(wrong, p.size) : 0, p.size);
  b.verify(kExerciseCorrectCheck, bytes, Counted::bytes, "your pipeline's output");
  const double lab_speedup = median_of(lab.depth_first_speedups);
  const double target = kDoneShare * lab_speedup;
  const double yours = o.ran ? median_of(lab.runs.at(Variant::sequential).ms) / median_of(o.result.ms) : 0;
  const bool done = o.ran && bytes.all_correct() && yours >= target;
  b.expect(kExerciseDoneCheck, done,
           msg("your speed-up over one stream, {yours}×, against the {target}× that 90% of the lab's {lab}× asks",
               arg("yours", format_number(yours)), arg("target", format_number(target)), arg("lab", format_number(lab_speedup))),
           "done: every byte right, and at least 90% of the lab's own depth-first speed-up in the same run");
  b.depends_on({"exercise.sequential", "exercise.lab"});
  b.headline(o.ran ? msg("your pipeline {yours}× vs one stream (the lab's {lab}×)", arg("yours", format_number(yours)),
                         arg("lab", format_number(lab_speedup)))
                   : Message("your pipeline did not run to its end"),
             {o.ran ? "exercise.speedup.yours" : "exercise.speedup.lab"});
  b.try_next("cudalab exercise 03 --timeline", "see what the engines did with your code");
  b.try_next("cudalab exercise 03 --hint", "the next hint");
  if (o.result.timeline) b.timelines({*o.result.timeline});
  Report r = std::move(b).build();
  r.exercise = ExerciseRecord{build.exercise_id, build.interface_name, build.interface_version,
                              build.file_name, build.source_text, source_digest(build.source_text)};
  return r;
}

}  // namespace cudalab::stream_overlap
