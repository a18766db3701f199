// Lesson 07's exercise without a GPU: what the findings read off a graph's shape, the report's
// checks and status, and the child's result read as untrusted input.
#include <gtest/gtest.h>

#include "common/core/errors.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/workspace.hpp"
#include "common/report/render.hpp"
#include "common/report/translate.hpp"
#include "exercise_report.hpp"

using namespace cudalab;
using namespace cudalab::graph_forkjoin;

namespace {

CaptureRequest request() { return CaptureRequest{8, 10, 4, 2048, 2, "small", {}}; }

CaptureResult graph_of(std::size_t width, double us) {
  CaptureResult r;
  r.shape.nodes = 96;
  r.shape.edges = 96 - width;
  r.shape.width = width;
  r.shape.critical_path = 96 / width;
  r.per_step_us = std::vector<double>(5, us);
  r.elements = r.correct = 16384;
  return r;
}

TEST(GraphFindings, OneChainAndFewerBranchesAreNamed) {
  auto found = read_graph(graph_of(1, 1000), request());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "one_chain");
  EXPECT_EQ(found[0].line.en(), "your graph is one chain of 96 nodes: everything was captured on one stream, so its "
                                "replay runs every batch in turn");
  found = read_graph(graph_of(2, 500), request());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "narrow");
  EXPECT_TRUE(read_graph(graph_of(4, 300), request()).empty());
}

CaptureYardstick lab() {
  CaptureYardstick y;
  y.one_stream.per_step_us = std::vector<double>(5, 1000);
  y.fork_join.per_step_us = std::vector<double>(5, 300);  // 3.33× measured
  y.one_stream.correct = y.fork_join.correct = y.elements = 16384;
  y.model_one_stream_us = 900;
  y.model_fork_join_us = 300;  // 3× modelled: the smaller of the two sets the target, 2.7×
  return y;
}

Report report_for(const CaptureResult& r) {
  StudentRun s;
  s.result = result_to_json(r);
  Params p;
  StudentBuild build;
  build.source_text = "my capture";
  return build_capture_report(p, lab(), s, build);
}

TEST(CaptureReport, DoneNeedsTheBranchesTheResultsAndTheMargin) {
  EXPECT_EQ(status_of_run(report_for(graph_of(4, 350))), ExerciseStatus::done);            // 2.86×
  EXPECT_EQ(status_of_run(report_for(graph_of(4, 400))), ExerciseStatus::correct_but_slow);  // 2.5×
  EXPECT_EQ(status_of_run(report_for(graph_of(2, 300))), ExerciseStatus::correct_but_slow);  // too narrow
  CaptureResult wrong = graph_of(4, 300);
  wrong.correct = 16000;
  EXPECT_EQ(status_of_run(report_for(wrong)), ExerciseStatus::wrong_result);
}

TEST(CaptureReport, AnUnjoinedCaptureIsTheVerdict) {
  StudentRun s;
  s.verdict = StudentVerdict::cuda_error;
  s.words = "your capture() left a stream unjoined";
  const Report r = build_capture_report(Params{}, lab(), s, StudentBuild{});
  EXPECT_EQ(status_of_run(r), ExerciseStatus::does_not_run);
  EXPECT_NE(r.find_metric("exercise.lab"), nullptr);
}

TEST(CaptureResultJson, RoundTripsAndRefusesNonsense) {
  const CaptureResult back = result_from_json(result_to_json(graph_of(4, 300)));
  EXPECT_EQ(back.shape.width, 4u);
  EXPECT_EQ(back.per_step_us.size(), 5u);
  nlohmann::json bad = result_to_json(graph_of(4, 300));
  bad["correct"] = 20000;  // more right than there are
  EXPECT_THROW(result_from_json(bad), UsageError);
  bad = result_to_json(graph_of(4, 300));
  bad["width"] = 1000;
  EXPECT_THROW(result_from_json(bad), UsageError);
}

}  // namespace

namespace {

TEST(CaptureReport, EveryFormInChineseHasItsEntry) {
  const TranslationAudit audit;
  TextStyle zh;
  zh.lang = Lang::zh;
  zh.timelines = true;
  for (const std::size_t width : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
    CaptureResult r = graph_of(width, 400);
    r.shape.nodes = 200;  // more nodes than the step's ops: the extra-nodes finding too
    Report report = report_for(r);
    report.lesson_number = 7;  // as the run's stamp names it: its notes and catalogue
    report.lesson_slug = "graph-forkjoin";
    EXPECT_FALSE(render_text(report, zh).empty());
  }
  StudentRun s;
  s.verdict = StudentVerdict::cuda_error;
  s.words = msg("your capture() left a stream unjoined ({error} from cudaStreamEndCapture): record an event on each "
                "stream you forked into the capture and make lab.origin wait on it before the capture ends",
                arg("error", std::string("cudaErrorStreamCaptureUnjoined")));
  Report unjoined = build_capture_report(Params{}, lab(), s, StudentBuild{});
  unjoined.lesson_number = 7;
  unjoined.lesson_slug = "graph-forkjoin";
  EXPECT_FALSE(render_text(unjoined, zh).empty());
  EXPECT_GT(audit.looked_up(), 30u);
  for (const auto& templ : audit.missing()) ADD_FAILURE() << "no Chinese for the template: " << templ;
}

}  // namespace
