// The GPU queue without a GPU: its order, release when a process dies, hostile files in the
// folder, the timeout, interruption, several GPUs and the shortest queue.
#include <unistd.h>

#include "common/queue/gpu_queue.hpp"
#include "common/core/interrupt.hpp"
#include "queue_test_support.hpp"

namespace cudalab {
namespace {

using testing_support::Child;
using testing_support::FakeQueueClock;
using testing_support::seconds_since;
using testing_support::quiet_options;
using testing_support::TempQueueFolder;

const std::string& kGpu = testing_support::kTestGpu;

TEST(GpuQueue, TicketsAreServedInArrivalOrder) {
  TempQueueFolder folder;
  const QueueOptions o = quiet_options(folder);
  QueueTicket first = QueueTicket::enter(kGpu, o);
  QueueTicket second = QueueTicket::enter(kGpu, o);
  QueueTicket third = QueueTicket::enter(kGpu, o);
  EXPECT_LT(first.number(), second.number());
  EXPECT_LT(second.number(), third.number());
  EXPECT_TRUE(first.ahead().empty());
  ASSERT_EQ(third.ahead().size(), 2u);
  EXPECT_EQ(third.ahead()[0].number, first.number());
  EXPECT_EQ(third.ahead()[1].number, second.number());
  first.leave();
  EXPECT_TRUE(second.ahead().empty());
  ASSERT_EQ(third.ahead().size(), 1u);
  EXPECT_EQ(third.ahead()[0].number, second.number());
  // A newcomer after the first left still sorts after everyone waiting.
  QueueTicket fourth = QueueTicket::enter(kGpu, o);
  EXPECT_GT(fourth.number(), third.number());
  EXPECT_EQ(fourth.ahead().size(), 2u);
}

TEST(GpuQueue, ATicketTellsWhoHoldsTheGpu) {
  TempQueueFolder folder;
  QueueTicket holder = QueueTicket::enter(kGpu, quiet_options(folder, "pinned-vs-pageable"));
  holder.mark_holding(1.7e9 + 12.5);
  const QueueTicket waiter = QueueTicket::enter(kGpu, quiet_options(folder));
  const auto ahead = waiter.ahead();
  ASSERT_EQ(ahead.size(), 1u);
  EXPECT_EQ(ahead[0].lesson, "pinned-vs-pageable");
  EXPECT_EQ(ahead[0].pid, std::to_string(::getpid()));
  EXPECT_EQ(ahead[0].user, queue_files::user_name(::geteuid()));
  ASSERT_TRUE(ahead[0].holding_since.has_value());
  EXPECT_NEAR(*ahead[0].holding_since, 1.7e9 + 12.5, 1e-3);
}

TEST(GpuQueue, TheTurnIsTakenWhenTheHolderLeavesAndRecordsItsCost) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  auto holder = std::make_unique<QueueTicket>(QueueTicket::enter(kGpu, quiet_options(folder)));
  QueueOptions o = quiet_options(folder);
  o.clock = &clock;
  int polls = 0;
  o.on_wait = [&](const QueueView& view) {
    EXPECT_EQ(view.ahead, 1);
    if (++polls == 4) holder.reset();  // the holder gives its turn back
  };
  GpuTurn turn = take_gpu_turn(kGpu, o);
  ASSERT_TRUE(turn.held());
  EXPECT_EQ(polls, 4);
  EXPECT_NEAR(turn.record().wait_s, 4 * o.poll_s, 1e-9);
  EXPECT_EQ(turn.record().position, 1);
  clock.advance(2.5);
  EXPECT_NEAR(turn.record().held_s, 2.5, 1e-9);
  EXPECT_EQ(queue_length(kGpu, folder.path()), 1);
  turn.release();
  EXPECT_FALSE(turn.held());
  EXPECT_NEAR(turn.record().held_s, 2.5, 1e-9);
  EXPECT_EQ(queue_length(kGpu, folder.path()), 0);
}

TEST(GpuQueue, TheTurnIsGivenBackWhenAnExceptionUnwinds) {
  TempQueueFolder folder;
  try {
    const GpuTurn turn = take_gpu_turn(kGpu, quiet_options(folder));
    EXPECT_EQ(queue_length(kGpu, folder.path()), 1);
    throw std::runtime_error("the lesson failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(queue_length(kGpu, folder.path()), 0);
}

TEST(GpuQueue, AKilledHolderLetsTheNextStartWithinASecond) {
  TempQueueFolder folder;
  Child holder([&](Child& self) -> int {
    const GpuTurn turn = take_gpu_turn(kGpu, quiet_options(folder));
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(holder.wait_ready());
  QueueOptions o = quiet_options(folder);
  std::optional<std::chrono::steady_clock::time_point> killed;
  o.on_wait = [&](const QueueView& view) {
    EXPECT_EQ(view.ahead, 1);
    if (!killed) {
      holder.kill(SIGKILL);
      killed = std::chrono::steady_clock::now();
    }
  };
  o.timeout_s = 5;
  const GpuTurn turn = take_gpu_turn(kGpu, o);
  ASSERT_TRUE(killed.has_value());
  EXPECT_LT(seconds_since(*killed), 1.0);
  EXPECT_EQ(holder.wait_exit(5), 128 + SIGKILL);
}

TEST(GpuQueue, AKilledWaitersTicketIsSkippedAndClearedAway) {
  TempQueueFolder folder;
  const QueueTicket holder = QueueTicket::enter(kGpu, quiet_options(folder));
  Child waiter([&](Child& self) -> int {
    const QueueTicket ticket = QueueTicket::enter(kGpu, quiet_options(folder));
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(waiter.wait_ready());
  const QueueTicket behind = QueueTicket::enter(kGpu, quiet_options(folder));
  EXPECT_EQ(behind.ahead().size(), 2u);
  waiter.kill(SIGKILL);
  ASSERT_TRUE(waiter.wait_exit(5).has_value());
  ASSERT_EQ(behind.ahead().size(), 1u);
  EXPECT_EQ(behind.ahead()[0].number, holder.number());
  // The next arrival (same user) removes the dead ticket under the order lock.
  const QueueTicket next = QueueTicket::enter(kGpu, quiet_options(folder));
  std::size_t tickets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder.gpu(kGpu))) {
    tickets += entry.path().filename().string().rfind("t-", 0) == 0;
  }
  EXPECT_EQ(tickets, 3u);
}

TEST(GpuQueue, TheTimeoutEndsTheWaitWithOneLine) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  QueueOptions as_holder = quiet_options(folder, "pinned-vs-pageable");
  as_holder.clock = &clock;
  const GpuTurn holder = take_gpu_turn(kGpu, as_holder);
  QueueOptions o = quiet_options(folder);
  o.clock = &clock;
  o.timeout_s = 3;
  try {
    take_gpu_turn(kGpu, o);
    FAIL() << "the wait did not time out";
  } catch (const QueueTimeoutError& e) {
    const std::string line = e.what();
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_NE(line.find("no turn on GPU-8f0e1c2a within 3 s (--queue-timeout): 1 run still ahead"), std::string::npos)
        << line;
    EXPECT_NE(line.find("pinned-vs-pageable"), std::string::npos) << line;
  }
  EXPECT_NEAR(clock.steady_s(), 103, 0.06);
  EXPECT_EQ(queue_length(kGpu, folder.path()), 1);  // our ticket went with the exception
}

TEST(GpuQueue, AnInterruptEndsTheWait) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  const QueueTicket holder = QueueTicket::enter(kGpu, quiet_options(folder));
  QueueOptions o = quiet_options(folder);
  o.clock = &clock;
  int polls = 0;
  o.check_interrupt = [&] {
    if (++polls == 3) throw InterruptedError("interrupted");
  };
  EXPECT_THROW(take_gpu_turn(kGpu, o), InterruptedError);
  EXPECT_EQ(queue_length(kGpu, folder.path()), 1);
}

// A real signal, through the project's handler: the wait ends within 0.2 s with exit 130.
void expect_signal_ends_wait(int signal) {
  TempQueueFolder folder;
  const QueueTicket holder = QueueTicket::enter(kGpu, quiet_options(folder));
  Child waiter([&](Child& self) -> int {
    install_interrupt_handler();
    QueueOptions o = quiet_options(folder);
    o.check_interrupt = nullptr;  // the default: throw_if_interrupted
    o.on_wait = [&](const QueueView&) { self.ready(); };
    try {
      take_gpu_turn(kGpu, o);
    } catch (const InterruptedError&) {
      return 130;
    }
    return 1;
  });
  ASSERT_TRUE(waiter.wait_ready());
  const auto sent = std::chrono::steady_clock::now();
  waiter.kill(signal);
  EXPECT_EQ(waiter.wait_exit(2), 130);
  EXPECT_LT(seconds_since(sent), 0.2);
}

TEST(GpuQueue, SigintEndsTheWaitAtOnce) { expect_signal_ends_wait(SIGINT); }
TEST(GpuQueue, SigtermEndsTheWaitAtOnce) { expect_signal_ends_wait(SIGTERM); }

TEST(GpuQueue, SeveralGpusAreTakenInUuidOrder) {
  TempQueueFolder folder;
  FakeQueueClock clock;
  const std::string a = "GPU-aaaaaaaa-0000", b = "GPU-bbbbbbbb-0000";
  const QueueTicket holder_of_b = QueueTicket::enter(b, quiet_options(folder));
  QueueOptions o = quiet_options(folder);
  o.clock = &clock;
  o.timeout_s = 1;
  std::vector<std::string> waited_for;
  o.on_wait = [&](const QueueView& view) {
    waited_for.push_back(view.gpu);
    EXPECT_EQ(queue_length(a, folder.path()), 1);  // a is already ours while we wait for b
  };
  EXPECT_THROW(take_gpu_turns({b, a, b}, o), QueueTimeoutError);
  ASSERT_FALSE(waited_for.empty());
  EXPECT_EQ(waited_for.front(), "GPU-bbbbbbbb");
  EXPECT_EQ(queue_length(a, folder.path()), 0);  // given back when the wait failed
}

TEST(GpuQueue, SeveralTurnsAreHeldAndReleasedTogether) {
  TempQueueFolder folder;
  const std::string a = "GPU-aaaaaaaa-0000", b = "GPU-bbbbbbbb-0000";
  GpuTurns turns = take_gpu_turns({b, a}, quiet_options(folder));
  EXPECT_TRUE(turns.held());
  EXPECT_EQ(queue_length(a, folder.path()), 1);
  EXPECT_EQ(queue_length(b, folder.path()), 1);
  turns.release();
  EXPECT_EQ(queue_length(a, folder.path()), 0);
  EXPECT_EQ(queue_length(b, folder.path()), 0);
  EXPECT_FALSE(GpuTurns().held());  // --no-queue: no turn at all
}

TEST(GpuQueue, DeviceAutoPicksTheShortestQueue) {
  TempQueueFolder folder;
  const std::vector<std::string> gpus{"GPU-00000000-a", "GPU-00000000-b", "GPU-00000000-c"};
  const QueueOptions o = quiet_options(folder);
  const QueueTicket a1 = QueueTicket::enter(gpus[0], o), a2 = QueueTicket::enter(gpus[0], o);
  const QueueTicket c1 = QueueTicket::enter(gpus[2], o);
  EXPECT_EQ(shortest_queue(gpus, folder.path()), 1u);
  const QueueTicket b1 = QueueTicket::enter(gpus[1], o);
  EXPECT_EQ(shortest_queue(gpus, folder.path()), 1u);  // b and c tie: the first
  const QueueTicket b2 = QueueTicket::enter(gpus[1], o);
  EXPECT_EQ(shortest_queue(gpus, folder.path()), 2u);
}

TEST(GpuQueue, UuidTextIsNvmlsForm) {
  const unsigned char bytes[16] = {0x8f, 0x0e, 0x1c, 0x2a, 0x1b, 0x2c, 0x3d, 0x4e,
                                   0x5f, 0x60, 0x71, 0x82, 0x93, 0xa4, 0xb5, 0xc6};
  EXPECT_EQ(gpu_uuid_text(bytes), kGpu);
}

}  // namespace
}  // namespace cudalab
