// Turns learned, not typed (common/queue/turn_log.hpp): what a GPU's queue folder learns from the
// turns that end on it, what it refuses to believe, and how the wait estimate and `list --times`
// use it. Every turn here is made up, with a fake clock.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "cli/course.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/queue/turn_log.hpp"
#include "queue_test_support.hpp"
#include "test_support.hpp"

namespace cudalab {
namespace {

using testing_support::FakeQueueClock;
using testing_support::kTestGpu;
using testing_support::quiet_options;
using testing_support::TempQueueFolder;

queue_files::Fd gpu_folder(const TempQueueFolder& folder) { return queue_files::open_gpu_folder(folder.path(), kTestGpu); }

// A file of turns as another user would leave it: `name`, owned by `uid` (root only can chown).
void leave_file(const TempQueueFolder& folder, const std::string& name, uid_t uid, const std::string& text) {
  const std::string path = folder.gpu(kTestGpu) + "/" + name;
  std::ofstream(path) << text;
  ASSERT_EQ(::chown(path.c_str(), uid, static_cast<gid_t>(-1)), 0) << path;
}

TEST(TurnLog, ALineIsExactlyLessonHeldAndWhenOrItIsSkipped) {
  const auto turns = parse_turns(
      "03-stream-overlap 1.400 1700000000.000\n"
      "03-stream-overlap nan 1700000000\n"          // not a number
      "03-stream-overlap 1e3 1700000000\n"          // no exponents
      "03-stream-overlap -1 1700000000\n"           // no sign
      "03-stream-overlap 0 1700000000\n"            // a turn takes time
      "03-stream-overlap 90000 1700000000\n"        // over a day
      "03-Stream-Overlap 1.0 1700000000\n"          // lesson names are lower case
      "03-stream-overlap 1.0 1700000000 extra\n"    // three words
      "03-stream-overlap 1.0\n"
      "\n"
      "05-callbacks 2.5 1700000001.5");
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].lesson, "03-stream-overlap");
  EXPECT_DOUBLE_EQ(turns[0].held_s, 1.4);
  EXPECT_EQ(turns[1].lesson, "05-callbacks");
  EXPECT_DOUBLE_EQ(turns[1].given_back_at, 1700000001.5);
}

TEST(TurnLog, AUsersFileKeepsTheNewestTurnsOfEachLesson) {
  std::vector<Turn> turns;
  for (int i = 0; i < 40; ++i) turns.push_back({"03-stream-overlap", 1.0 + i, 1000.0 + i});
  turns.push_back({"05-callbacks", 2.0, 500.0});
  const auto kept = parse_turns(turns_text(turns));
  ASSERT_EQ(kept.size(), kTurnsKept + 1);
  EXPECT_EQ(kept.front().lesson, "05-callbacks");  // oldest first
  EXPECT_DOUBLE_EQ(kept[1].held_s, 1.0 + 40 - kTurnsKept);
  EXPECT_DOUBLE_EQ(kept.back().held_s, 40.0);
}

TEST(TurnLog, AFinishedTurnIsLearnedAndAnyOtherEndIsNot) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  QueueOptions o = quiet_options(folder, "03-stream-overlap");
  o.clock = &clock;
  for (double held : {1.0, 3.0, 2.0}) {
    GpuTurn turn = take_gpu_turn(kTestGpu, o);
    clock.advance(held);
    turn.release_finished();
  }
  {
    GpuTurn failed = take_gpu_turn(kTestGpu, o);
    clock.advance(50);
    failed.release();  // a run that failed or was stopped teaches nothing
  }
  {
    GpuTurn unwound = take_gpu_turn(kTestGpu, o);
    clock.advance(70);
  }  // an exception's unwinding, as here the destructor, teaches nothing either
  const LearnedTurns learned = learned_turns(gpu_folder(folder).get());
  ASSERT_EQ(learned.count("03-stream-overlap"), 1u);
  EXPECT_EQ(learned.at("03-stream-overlap").count, 3u);
  EXPECT_DOUBLE_EQ(learned.at("03-stream-overlap").median_s, 2.0);
  EXPECT_TRUE(learned.at("03-stream-overlap").enough());
}

TEST(TurnLog, TheStatedTurnStandsUntilEnoughTurnsAreLearned) {
  TempQueueFolder folder;
  const auto gpu = gpu_folder(folder);
  const TurnTimes stated{{{"03-stream-overlap", 6.9}, {"05-callbacks", 1.35}}};
  for (std::size_t i = 0; i + 1 < kTurnsToLearn; ++i) {
    ASSERT_TRUE(remember_turn(gpu.get(), {"03-stream-overlap", 1.5, 1000.0 + i}));
  }
  EXPECT_DOUBLE_EQ(with_learned(stated, learned_turns(gpu.get())).by_lesson.at("03-stream-overlap"), 6.9);
  ASSERT_TRUE(remember_turn(gpu.get(), {"03-stream-overlap", 1.5, 2000.0}));
  const TurnTimes times = with_learned(stated, learned_turns(gpu.get()));
  EXPECT_DOUBLE_EQ(times.by_lesson.at("03-stream-overlap"), 1.5);
  EXPECT_DOUBLE_EQ(times.by_lesson.at("05-callbacks"), 1.35);  // nothing learned of it
}

// The waiting line of a student behind a holder of 03 estimates from what this GPU learned of 03.
TEST(TurnLog, TheWaitEstimateAndTheStuckRuleUseTheLearnedMedian) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  QueueOptions o = quiet_options(folder, "03-stream-overlap");
  o.clock = &clock;
  o.turn_times = TurnTimes{{{"03-stream-overlap", 2.0}}};
  {
    const auto gpu = gpu_folder(folder);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(remember_turn(gpu.get(), {"03-stream-overlap", 20.0, 1000.0 + i}));
  }
  const GpuTurn holder = take_gpu_turn(kTestGpu, o);
  std::vector<QueueView> views;
  o.on_wait = [&](const QueueView& view) { views.push_back(view); };
  o.poll_s = 1;
  o.timeout_s = 12;
  EXPECT_THROW(take_gpu_turn(kTestGpu, o), QueueTimeoutError);
  ASSERT_FALSE(views.empty());
  ASSERT_TRUE(views.back().holder_usual_s.has_value());
  EXPECT_DOUBLE_EQ(*views.back().holder_usual_s, 20.0);  // learned, not the stated 2 s
  EXPECT_FALSE(views.back().holder_stuck);                // 12 s of a 20 s lesson: not stuck (it was, at 2 s)
  ASSERT_TRUE(views.front().estimate_s.has_value());
  EXPECT_NEAR(*views.front().estimate_s, 20.0, 1.01);
}

// Anyone can write the folder: a file counts only when its owner is the uid in its name, and one
// user gives at most kTurnsPerUser of a lesson's turns.
TEST(TurnLog, NoUserMovesTheMedianAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to leave files as other users";
  TempQueueFolder folder;
  const auto gpu = gpu_folder(folder);
  std::string many;
  for (int i = 0; i < 15; ++i) many += fmt::format("03-stream-overlap 900 {}\n", 2000 + i);
  leave_file(folder, "turns-4001", 4001, many);                                        // one user, 15 long turns
  leave_file(folder, "turns-4002", 4003, "03-stream-overlap 500 3000\n");              // not its owner's file
  leave_file(folder, "turns-4004", 4004, "03-stream-overlap 1 1000\n03-stream-overlap 1 1001\n");
  leave_file(folder, "turns-4005", 4005, "03-stream-overlap 1 1002\n03-stream-overlap 1 1003\n"
                                         "03-stream-overlap 1 1004\n03-stream-overlap 1 1005\n");
  const LearnedTurns learned = learned_turns(gpu.get());
  ASSERT_EQ(learned.count("03-stream-overlap"), 1u);
  EXPECT_EQ(learned.at("03-stream-overlap").count, kTurnsPerUser + 6);
  EXPECT_DOUBLE_EQ(learned.at("03-stream-overlap").median_s, 1.0);  // 5 of 11 are the loud user's
}

TEST(TurnLog, ListTimesSaysWhatEachGpuLearnedAndFallsBackToTheReferenceRuns) {
  TempQueueFolder folder;
  ::setenv("CUDALAB_QUEUE_DIR", folder.path().c_str(), 1);
  const auto fresh = testing_support::run_cudalab({"list", "--times"});
  EXPECT_EQ(fresh.code, 0);
  std::string said = fresh.out;
  std::replace(said.begin(), said.end(), '\n', ' ');
  EXPECT_NE(said.find("no GPU of this host has learned a turn yet"), std::string::npos) << fresh.out;
  const std::string lesson = course().front().id();
  const auto stated = course_turn_times().by_lesson.at(lesson);
  EXPECT_NE(fresh.out.find(fmt::format("{:.2f} s", stated)), std::string::npos) << fresh.out;
  {
    const auto gpu = gpu_folder(folder);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(remember_turn(gpu.get(), {lesson, 0.25 + 0.01 * i, 1000.0 + i}));
  }
  const auto learned = testing_support::run_cudalab({"list", "--times"});
  ::unsetenv("CUDALAB_QUEUE_DIR");
  EXPECT_EQ(learned.code, 0);
  EXPECT_NE(learned.out.find(kTestGpu.substr(0, 12)), std::string::npos) << learned.out;
  EXPECT_NE(learned.out.find("0.26 s (3)"), std::string::npos) << learned.out;
}

}  // namespace
}  // namespace cudalab
