#include "exercise_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/stats.hpp"
#include "common/core/text_format.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/workspace.hpp"
#include "common/report/builder.hpp"
#include "common/report/json_field.hpp"
#include "common/report/timeline_json.hpp"
#include "lessons/shared/training-step/step_model.hpp"

namespace cudalab::graph_forkjoin {

namespace {

std::size_t expected_width(const CaptureRequest& q) {
  return static_cast<std::size_t>(std::min(q.batches, q.streams));
}

using Outcome = StudentOutcome<CaptureResult>;

Outcome outcome_of(const StudentRun& student) {
  return cudalab::outcome_of<CaptureResult>(student, "capture()", result_from_json,
                                            [](const CaptureResult& r) { return !r.per_step_us.empty(); });
}

void add_yardstick(ReportBuilder& b, const CaptureYardstick& lab, const Outcome& o, const StudentBuild& build) {
  auto s = b.section("exercise", "your graph beside the lab's", "exercise");
  s.fact("file", "your file", verbatim(build.source_path),
         msg("compiled in {seconds} s", arg("seconds", fmt::format("{:.1f}", build.compile_s))), false);
  s.metric(measured("exercise.one_stream", "the whole step captured on one stream", "us", lab.one_stream.per_step_us)
               .with_prediction(lab.model_one_stream_us));
  s.metric(measured("exercise.lab", "the lab's fork/join capture", "us", lab.fork_join.per_step_us)
               .with_prediction(lab.model_fork_join_us));
  s.metric(derived("exercise.speedup.lab", "the lab's speed-up over the one-stream capture", "x",
                   median_of(lab.one_stream.per_step_us) / median_of(lab.fork_join.per_step_us))
               .from({"exercise.one_stream", "exercise.lab"}));
  if (!o.ran) return;
  s.fact("nodes", "your graph's nodes", verbatim(std::to_string(o.result.shape.nodes)));
  s.fact("width", "nodes of your graph that can run at once", verbatim(std::to_string(o.result.shape.width)));
  s.metric(measured("exercise.yours", "your graph, one step", "us", o.result.per_step_us).with_prediction(lab.model_fork_join_us)
               .with_note("the model's figure is the fork/join graph's"));
  s.metric(derived("exercise.speedup.yours", "your speed-up over the one-stream capture", "x",
                   median_of(lab.one_stream.per_step_us) / median_of(o.result.per_step_us))
               .from({"exercise.one_stream", "exercise.yours"}));
}

}  // namespace

nlohmann::json request_to_json(const CaptureRequest& r) {
  return {{"batches", r.batches}, {"layers", r.layers}, {"streams", r.streams}, {"features", r.features},
          {"steps", r.steps},     {"kernel", r.kernel}, {"warmup", r.reps.warmup}, {"repeat", r.reps.repeat}};
}

CaptureRequest request_from_json(const std::string& text) {
  const nlohmann::json j = parse_untrusted_json(text, "the exercise's request");
  const JsonField f(j, "");
  CaptureRequest r;
  r.batches = static_cast<int>(f.at("batches").integer(1, 64));
  r.layers = static_cast<int>(f.at("layers").integer(1, 32));
  r.streams = static_cast<int>(f.at("streams").integer(1, 64));
  r.features = static_cast<int>(f.at("features").integer(32, 4096));
  r.steps = static_cast<int>(f.at("steps").integer(1, 1000));
  r.kernel = f.at("kernel").text() == "fill" ? "fill" : "small";
  r.reps.warmup = static_cast<int>(f.at("warmup").integer(0, 100000));
  r.reps.repeat = static_cast<int>(f.at("repeat").integer(1, 100000));
  r.reps.adaptive = false;
  return r;
}

nlohmann::json result_to_json(const CaptureResult& r) {
  nlohmann::json j{{"nodes", r.shape.nodes},
                   {"edges", r.shape.edges},
                   {"width", r.shape.width},
                   {"critical_path", r.shape.critical_path},
                   {"per_step_us", r.per_step_us},
                   {"correct", r.correct},
                   {"elements", r.elements}};
  if (r.timeline) j["timeline"] = *r.timeline;
  return j;
}

CaptureResult result_from_json(const nlohmann::json& j) {
  const JsonField f(j, "");
  CaptureResult r;
  r.shape.nodes = f.at("nodes").count();
  r.shape.edges = f.at("edges").count();
  r.shape.width = f.at("width").count();
  r.shape.critical_path = f.at("critical_path").count();
  r.per_step_us = f.at("per_step_us").numbers();
  r.correct = f.at("correct").count();
  r.elements = f.at("elements").count();
  if (r.correct > r.elements) f.at("correct").fail("more elements right than there are");
  if (r.shape.width > r.shape.nodes) f.at("width").fail("wider than the graph has nodes");
  if (const auto t = f.find("timeline")) r.timeline = read_timeline(*t);
  return r;
}

std::vector<GraphFinding> read_graph(const CaptureResult& result, const CaptureRequest& request) {
  std::vector<GraphFinding> found;
  const std::size_t wanted = expected_width(request);
  if (result.shape.width <= 1 && wanted > 1) {
    found.push_back({"one_chain", msg("your graph is one chain of {nodes} nodes: everything was captured on one stream, "
                                      "so its replay runs every batch in turn",
                                      arg("nodes", result.shape.nodes))});
  } else if (result.shape.width < wanted) {
    found.push_back({"narrow", msg("your graph has {width} branches that can run at once, not the {wanted} that {streams} "
                                   "streams and {batches} batches allow",
                                   arg("width", result.shape.width), arg("wanted", wanted),
                                   arg("streams", request.streams), arg("batches", request.batches))});
  }
  const std::size_t ops = static_cast<std::size_t>(request.batches) * static_cast<std::size_t>(request.layers + 2);
  if (result.shape.nodes > ops) {
    found.push_back({"extra_nodes", msg("your graph has {nodes} nodes where the step's {ops} copies and kernels need "
                                        "{ops}: the rest are your own",
                                        arg("nodes", result.shape.nodes), arg("ops", ops))});
  }
  return found;
}

Report build_capture_report(const Params& p, const CaptureYardstick& lab, const StudentRun& student,
                            const StudentBuild& build) {
  const Outcome o = outcome_of(student);
  const CaptureRequest q{p.batches, p.layers, p.streams, p.features, p.steps, p.kernel, {}};
  ReportBuilder b(flags().params(p));
  add_yardstick(b, lab, o, build);
  auto findings = b.section("findings", "what your capture made", "exercise_findings");
  if (!o.ran) findings.fact("verdict", "verdict", o.verdict);
  if (o.ran) {
    for (const auto& f : read_graph(o.result, q)) findings.fact(f.key, "finding", f.line);
  }
  b.verify("fork_join", lab.fork_join.correct, lab.elements, "the lab's fork/join capture");
  b.verify(kExerciseRanCheck, o.ran, o.ran ? Message("your capture() ran to its end") : o.verdict);
  b.verify(kExerciseCorrectCheck, o.ran ? o.result.correct : 0, lab.elements, "your graph's results");
  const double lab_speedup = median_of(lab.one_stream.per_step_us) / median_of(lab.fork_join.per_step_us);
  const double model_speedup = lab.model_fork_join_us > 0 ? lab.model_one_stream_us / lab.model_fork_join_us : 0;
  const double target = kDoneShare * std::min(lab_speedup, model_speedup > 0 ? model_speedup : lab_speedup);
  const double yours = o.ran ? median_of(lab.one_stream.per_step_us) / median_of(o.result.per_step_us) : 0;
  const bool wide = o.ran && o.result.shape.width >= expected_width(q);
  const bool done = wide && o.ran && o.result.correct == lab.elements && yours >= target;
  b.expect(kExerciseDoneCheck, done,
           msg("your graph: {width} of {wanted} branches at once, {yours}× over the one-stream capture, against the "
               "{target}× asked (90% of the smaller of the model's {model}× and the lab's {lab}×)",
               arg("width", o.ran ? o.result.shape.width : 0), arg("wanted", expected_width(q)),
               arg("yours", format_number(yours)), arg("target", format_number(target)),
               arg("model", format_number(model_speedup)), arg("lab", format_number(lab_speedup))),
           "done: as many branches as the step allows, every element right, and the speed-up asked");
  b.depends_on({"exercise.one_stream", "exercise.lab"});
  b.headline(o.ran ? msg("your graph {yours}× vs one stream (the lab's {lab}×)", arg("yours", format_number(yours)),
                         arg("lab", format_number(lab_speedup)))
                   : Message("your capture did not run to its end"),
             {o.ran ? "exercise.speedup.yours" : "exercise.speedup.lab"});
  b.try_next("cudalab exercise 07 --timeline", "see the branches of your graph run");
  b.try_next("cudalab exercise 07 --hint", "the next hint");
  if (o.result.timeline) b.timelines({*o.result.timeline});
  Report r = std::move(b).build();
  r.exercise = ExerciseRecord{build.exercise_id, build.interface_name, build.interface_version, build.file_name,
                              build.source_text, source_digest(build.source_text)};
  return r;
}

}  // namespace cudalab::graph_forkjoin
