// What a waiting student reads: the place in the queue, who holds the GPU, the estimate, and a
// turn held far too long named as stuck.
#include <algorithm>
#include <cstdio>

#include "common/queue/gpu_queue.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"
#include "queue_test_support.hpp"

namespace cudalab {
namespace {

using testing_support::FakeQueueClock;
using testing_support::quiet_options;
using testing_support::TempQueueFolder;

const std::string& kGpu = testing_support::kTestGpu;
constexpr double kNow = 1.7e9;

TurnTimes class_times() { return TurnTimes{{{"stream-overlap", 3.0}, {"pinned-vs-pageable", 5.0}, {"priority", 1.0}}}; }

TicketInfo ticket(std::uint64_t number, std::string lesson, std::optional<double> since = std::nullopt) {
  return TicketInfo{number, std::move(lesson), "bob", "1234", since};
}

TEST(QueueLine, SaysThePlaceTheHolderAndTheWait) {
  const std::vector<TicketInfo> ahead{ticket(7, "stream-overlap", kNow - 1.2), ticket(8, "pinned-vs-pageable")};
  const QueueView view = make_queue_view(kGpu, 4.2, ahead, class_times(), kNow, kNow);
  EXPECT_EQ(view.ahead, 2);
  EXPECT_NEAR(view.held_s, 1.2, 1e-6);
  ASSERT_TRUE(view.estimate_s.has_value());
  EXPECT_NEAR(*view.estimate_s, (3.0 - 1.2) + 5.0, 1e-6);
  EXPECT_FALSE(view.holder_stuck);
  EXPECT_EQ(waiting_line(view).en(),
            "cudalab: waiting 4.2 s for GPU-8f0e1c2a · 2 ahead of you · now stream-overlap of bob (pid 1234), "
            "1.2 s in · about 6.8 s to wait");
}

TEST(QueueLine, NamesATurnHeldFarPastItsLessonsTime) {
  const std::vector<TicketInfo> ahead{ticket(7, "stream-overlap", kNow - 95), ticket(8, "priority")};
  const QueueView view = make_queue_view(kGpu, 30, ahead, class_times(), kNow, kNow);
  EXPECT_TRUE(view.holder_stuck);
  const std::string line = waiting_line(view).en();
  EXPECT_NE(line.find("stream-overlap held 95 s, its lesson usually takes 3 s: pid 1234 of bob may be stuck"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("at least 1 s to wait"), std::string::npos) << line;
}

TEST(QueueLine, StuckMeansThreeTimesTheLessonAndTenSeconds) {
  EXPECT_FALSE(turn_looks_stuck(8.9, 2.0));   // 4× its time, but under 10 s
  EXPECT_FALSE(turn_looks_stuck(14, 5.0));    // over 10 s, under 3×
  EXPECT_TRUE(turn_looks_stuck(15, 5.0));
  EXPECT_TRUE(turn_looks_stuck(10, 1.0));
  EXPECT_FALSE(turn_looks_stuck(1000, std::nullopt));
}

TEST(QueueLine, AnUnknownLessonCountsAsTheMedianAndAFalseClockIsIgnored) {
  EXPECT_EQ(class_times().typical("no-such-lesson"), 3.0);
  EXPECT_FALSE(TurnTimes{}.typical("stream-overlap").has_value());
  // The holder claims a start in 1970: the line uses when this run first saw it instead.
  const std::vector<TicketInfo> ahead{ticket(7, "\\x1b[31m", 0.0)};
  const QueueView view = make_queue_view(kGpu, 2, ahead, class_times(), kNow, kNow - 2);
  EXPECT_NEAR(view.held_s, 2, 1e-6);
  EXPECT_EQ(view.holder_usual_s, 3.0);
  EXPECT_FALSE(make_queue_view(kGpu, 2, ahead, TurnTimes{}, kNow, kNow).estimate_s.has_value());
}

TEST(QueueLine, DurationsReadNaturally) {
  EXPECT_EQ(format_wait(0).en(), "0 s");
  EXPECT_EQ(format_wait(2.44).en(), "2.4 s");
  EXPECT_EQ(format_wait(3.0).en(), "3 s");
  EXPECT_EQ(format_wait(38.4).en(), "38 s");
  EXPECT_EQ(format_wait(200).en(), "3 min 20 s");
  EXPECT_EQ(format_wait(7200).en(), "2 h 0 min");
  EXPECT_EQ(format_wait(-1).en(), "0 s");
}

TEST(QueueLine, StaleHolderIsNamedAsTheFakeClockRuns) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  QueueOptions o = quiet_options(folder, "priority");
  o.turn_times = class_times();
  o.clock = &clock;
  const GpuTurn holder = take_gpu_turn(kGpu, o);
  o.poll_s = 0.5;
  o.timeout_s = 12;
  std::vector<QueueView> views;
  o.on_wait = [&](const QueueView& view) { views.push_back(view); };
  EXPECT_THROW(take_gpu_turn(kGpu, o), QueueTimeoutError);
  ASSERT_GE(views.size(), 20u);
  EXPECT_FALSE(views.front().holder_stuck);
  EXPECT_TRUE(views.back().holder_stuck);  // priority usually takes 1 s; held 12 s
  EXPECT_NE(waiting_line(views.back()).en().find("may be stuck"), std::string::npos);
  for (const auto& view : views) EXPECT_EQ(view.holder_stuck, view.held_s >= 10);
}

std::string drawn(bool terminal, const std::vector<QueueView>& views, std::size_t columns = 200) {
  std::FILE* out = std::tmpfile();
  {
    WaitingLine line(out, terminal, columns);
    for (const auto& view : views) line.show(view);
    line.done(kGpu, 9.5);
  }
  std::rewind(out);
  std::string text;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) text += static_cast<char>(c);
  std::fclose(out);
  return text;
}

TEST(QueueLine, WithoutATerminalALineIsPrintedOnlyWhenItSaysSomethingNew) {
  const std::vector<TicketInfo> two{ticket(7, "stream-overlap", kNow), ticket(8, "priority")};
  const std::vector<TicketInfo> one{ticket(8, "priority", kNow)};
  const std::vector<QueueView> views{make_queue_view(kGpu, 1, two, class_times(), kNow, kNow),
                                     make_queue_view(kGpu, 2, two, class_times(), kNow + 1, kNow),
                                     make_queue_view(kGpu, 3, one, class_times(), kNow + 2, kNow)};
  const std::string text = drawn(false, views);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
  EXPECT_NE(text.find("2 ahead of you"), std::string::npos);
  EXPECT_NE(text.find("1 ahead of you"), std::string::npos);
  EXPECT_NE(text.find("cudalab: your turn on GPU-8f0e1c2a after 9.5 s\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(drawn(false, {}), "");  // no wait, no line
}

TEST(QueueLine, OnATerminalTheLineIsRewrittenInPlaceAndFitsTheWidth) {
  const std::vector<TicketInfo> two{ticket(7, "stream-overlap", kNow), ticket(8, "priority")};
  const std::vector<QueueView> views{make_queue_view(kGpu, 1, two, class_times(), kNow, kNow),
                                     make_queue_view(kGpu, 1.1, two, class_times(), kNow, kNow),
                                     make_queue_view(kGpu, 1.5, two, class_times(), kNow, kNow)};
  const std::string text = drawn(true, views, 40);
  EXPECT_EQ(text.find('\n'), std::string::npos);
  // Drawn at 1 s and 1.5 s (not 1.1 s: five redraws a second), then erased.
  std::size_t draws = 0;
  for (std::size_t at = text.find("\r\x1b[K"); at != std::string::npos; at = text.find("\r\x1b[K", at + 1)) ++draws;
  EXPECT_EQ(draws, 3u) << text;
  const std::size_t last = text.rfind("\r\x1b[Kcudalab");
  const std::string shown = text.substr(last + 4, text.rfind("\r\x1b[K") - last - 4);
  EXPECT_LE(display_width(shown), 39u) << shown;
}

}  // namespace
// Every form of the queue's lines has a Chinese form: the waiting line with and without a holder
// and an estimate, a busy order lock, each reason for passing a ticket over, and the turn itself.
TEST(QueueLine, EveryFormOfTheLinesHasAChineseForm) {
  const TranslationAudit audit;
  std::vector<Message> lines;
  const std::vector<TicketInfo> running{ticket(7, "stream-overlap", kNow - 1.2), ticket(8, "pinned-vs-pageable")};
  const std::vector<TicketInfo> stuck{ticket(7, "stream-overlap", kNow - 95), ticket(8, "priority")};
  const std::vector<TicketInfo> unknown{ticket(7, "no-such-lesson", kNow - 1.2)};
  for (const auto* ahead : {&running, &stuck, &unknown}) {
    lines.push_back(waiting_line(make_queue_view(kGpu, 4.2, *ahead, class_times(), kNow, kNow)));
    lines.push_back(waiting_line(make_queue_view(kGpu, 4.2, *ahead, TurnTimes{}, kNow, kNow)));
  }
  QueueView busy = make_queue_view(kGpu, 12, {}, class_times(), kNow, kNow);
  busy.order_lock_busy = true;
  lines.push_back(waiting_line(busy));
  for (const char* why : {"its process is stopped (Ctrl-Z or kill -STOP) for {duration}",
                          "it holds the turn without a CUDA context on this GPU for {duration}",
                          "its turn came and it did not take it for {duration}"}) {
    lines.push_back(passed_over_line("GPU-8f0e1c2a", PassedOver{ticket(1, "?"), msg(why, arg("duration", format_wait(2)))}));
  }
  // --queue-timeout's line: one run or several ahead, no holder, a holder, a stuck one.
  const std::vector<TicketInfo> one{ticket(7, "stream-overlap", kNow - 1.2)};
  for (const auto* ahead : {&one, &running, &stuck}) {
    lines.push_back(queue_timeout_line(make_queue_view(kGpu, 30, *ahead, class_times(), kNow, kNow), 30));
  }
  lines.push_back(queue_timeout_line(make_queue_view(kGpu, 30, {}, class_times(), kNow, kNow), 30));
  EXPECT_EQ(lines.back().en(), "no turn on GPU-8f0e1c2a within 30 s (--queue-timeout): 0 runs still ahead");
  EXPECT_EQ(lines[lines.size() - 2].en(),
            "no turn on GPU-8f0e1c2a within 30 s (--queue-timeout): 2 runs still ahead; the GPU is held by "
            "stream-overlap of bob (pid 1234) for 95 s, which may be stuck");
  // The line WaitingLine::done prints without a terminal.
  std::FILE* out = std::tmpfile();
  {
    WaitingLine line(out, false, 200);
    line.set_words([&lines](const Message& words) {
      lines.push_back(words);
      return words.en();
    });
    line.show(make_queue_view(kGpu, 1, running, class_times(), kNow, kNow));
    line.done(kGpu, 1.1);
  }
  std::fclose(out);
  ASSERT_EQ(lines.back().en(), "cudalab: your turn on GPU-8f0e1c2a after 1.1 s");
  for (const auto& line : lines) {
    const std::string zh = tr(Lang::zh, line);
    EXPECT_NE(zh, line.en()) << "no zh form: " << line;
    for (const char* word : {"waiting", "ahead", "passed over", "your turn", "stuck", "to wait", " in", "held"}) {
      EXPECT_EQ(zh.find(word), std::string::npos) << word << " left in: " << zh;
    }
  }
  EXPECT_GT(audit.looked_up(), 0u);
  EXPECT_TRUE(audit.missing().empty()) << ::testing::PrintToString(audit.missing());
}

}  // namespace cudalab
