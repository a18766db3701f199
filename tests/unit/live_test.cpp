// Live mode with scripted input, on a lesson that needs no GPU.
#include <gtest/gtest.h>

#include <deque>
#include <sstream>

#include "cli/suggest.hpp"
#include "fake_lesson.hpp"

using namespace cudalab;
using namespace cudalab::testing_support;

namespace {

class ScriptedReader final : public LineReader {
 public:
  explicit ScriptedReader(std::deque<std::string> lines) : lines_(std::move(lines)) {}
  std::optional<std::string> read(const std::string&) override {
    if (lines_.empty()) return std::nullopt;
    auto line = lines_.front();
    lines_.pop_front();
    return line;
  }

 private:
  std::deque<std::string> lines_;
};

std::string sitting(std::deque<std::string> commands, std::vector<std::string> args = {}) {
  ScriptedReader reader(std::move(commands));
  std::ostringstream out;
  Invocation inv = fake_live_invocation(args);
  EXPECT_EQ(run_sitting(inv, fake_runner(), reader, out), 0);
  return out.str();
}

// A lesson with a --full switch of its own, which live mode's "full" command must not hide.
struct FullParams {
  int streams = 4;
  bool full = false;
};
const FlagTable<FullParams>& full_flags() {
  static const FlagTable<FullParams> table = FlagTable<FullParams>()
                                                 .integer("streams", &FullParams::streams, 1, 64, "streams")
                                                 .flag("full", &FullParams::full, "also the long sections");
  return table;
}
int full_measure(const FullParams& p, const RunContext&) { return p.streams; }
int full_predict(const FullParams&, const int& m) { return m; }
Report full_report(const FullParams& p, const int& m, const int&) {
  ReportBuilder b(full_flags().params(p));
  b.section("streams", "streams", "").metric(derived("streams", "streams", "x", m));
  if (p.full) b.section("long", "the long section", "");
  b.headline("full headline", {"streams"});
  return std::move(b).build();
}
std::unique_ptr<Lesson> make_full_lesson() {
  return make_lesson(full_flags, Repetitions{0, 1}, full_measure, full_predict, full_report);
}

std::string sitting_with_full_switch(std::deque<std::string> commands) {
  static const CourseEntry entry = LessonDescription(fake_entry().number, fake_entry().slug)
                                       .titled("a lesson with --full", "有 --full 的一课")
                                       .summarized("no GPU needed", "不需要 GPU")
                                       .made_by(&make_full_lesson);
  Invocation inv = fake_live_invocation({});
  inv.lessons.front() = LessonSetup{&entry, entry.make(), {}, {}, {}};
  ScriptedReader reader(std::move(commands));
  std::ostringstream out;
  EXPECT_EQ(run_sitting(inv, fake_runner(), reader, out), 0);
  return out.str();
}

}  // namespace

TEST(Live, FullAloneShowsTheLastRunAndFullOnSetsALessonsOwnSwitch) {
  const std::string out = sitting_with_full_switch({"full", "full on", "--full off", "quit"});
  EXPECT_NE(out.find("params    streams=4 full=on"), std::string::npos) << out;
  const auto last_params = out.rfind("params    ");
  EXPECT_EQ(out.substr(last_params, 29), "params    streams=4 full=off\n") << out;
  // "full" alone printed the first run again: its header appears twice before "full=on".
  const auto first_on = out.find("full=on");
  const std::string header = "cudalab 03 · ";
  const auto first = out.find(header);
  ASSERT_NE(first, std::string::npos) << out;
  const auto again = out.find(header, first + 1);
  EXPECT_LT(again, first_on) << out;
}

TEST(Live, RunsOnceThenComparesEachRerunWithThePreviousAndTheFirst) {
  const std::string out = sitting({"streams 8", "streams 16", "quit"});
  EXPECT_NE(out.find("speed-up vs one stream"), std::string::npos) << out;  // the full first run
  EXPECT_NE(out.find("params    streams=4"), std::string::npos) << out;
  EXPECT_NE(out.find("params    streams=8"), std::string::npos) << out;
  // 3N/(N+2): 2.0 at 4 streams, 2.4 at 8, 2.667 at 16.
  EXPECT_NE(out.find("2.400 x       2.000 x  ×1.20       2.000 x  ×1.20"), std::string::npos) << out;
  EXPECT_NE(out.find("2.667 x       2.400 x  ×1.11       2.000 x  ×1.33"), std::string::npos) << out;
  EXPECT_NE(out.find("cudalab 03 · " + std::string(fake_entry().slug)), std::string::npos) << out;
  EXPECT_NE(out.find("✗→✓ expect above_two"), std::string::npos) << out;
}

TEST(Live, BadValuesAndUnknownNamesGetOneLineAndTheSittingGoesOn) {
  const std::string out = sitting({"streams 0", "stream 8", "streams", "streams 8", "quit"});
  EXPECT_NE(out.find("cudalab: error: --streams: 0 is out of range; allowed 1 to 64"), std::string::npos) << out;
  EXPECT_NE(out.find("no parameter or command 'stream' (did you mean 'streams'?)"), std::string::npos) << out;
  EXPECT_NE(out.find("streams needs a value: streams N"), std::string::npos) << out;
  EXPECT_NE(out.find("params    streams=8"), std::string::npos) << "a good value after bad ones still runs";
}

TEST(Live, ResetGoesBackToTheStartingFlagsAndSwitchesTakeOnOff) {
  const std::string out = sitting({"streams 16", "slow on", "reset", "quit"}, {"--streams", "2"});
  EXPECT_NE(out.find("params    streams=16 slow=on"), std::string::npos) << out;
  const auto last_params = out.rfind("params    ");
  EXPECT_EQ(out.substr(last_params, 29), "params    streams=2 slow=off\n") << out;
}

TEST(Live, SavesTheSittingAsJsonRuns) {
  const auto path = ::testing::TempDir() + "live_sitting.json";
  const std::string out = sitting({"streams 8", "save " + path, "quit"});
  EXPECT_NE(out.find("saved 2 runs to " + path), std::string::npos) << out;
}

TEST(Live, EndOfInputEndsTheSitting) { EXPECT_NE(sitting({}).find("params"), std::string::npos); }

TEST(Suggest, ClosestWordWithinTwoEditsOrAUniquePrefix) {
  EXPECT_EQ(closest_word("stream", {"streams", "size", "chunks"}), "streams");
  EXPECT_EQ(closest_word("strams", {"streams", "size"}), "streams");
  EXPECT_EQ(closest_word("kernel", {"kernel-iters", "size"}), "kernel-iters");
  EXPECT_EQ(closest_word("xyz", {"streams", "size"}), "");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}
