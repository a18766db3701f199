// The queue's rules for a real course server (gpu_queue.hpp, "Turns that do not move"): a holder
// stopped with Ctrl-Z or kill -STOP, a lock holder that is no measuring cudalab, a ticket whose
// turn came and was never taken, instructors first, --device auto spreading a class; and the
// kernel facts they read (/proc/locks, /proc/PID/stat), from real processes.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/queue/gpu_queue.hpp"
#include "common/queue/holders.hpp"
#include "queue_test_support.hpp"

namespace cudalab {
namespace {

using testing_support::Child;
using testing_support::quiet_options;
using testing_support::seconds_since;
using testing_support::TempQueueFolder;

const std::string& kGpu = testing_support::kTestGpu;
const std::string kOtherGpu = "GPU-00000000-1b2c-3d4e-5f60-718293a4b5c6";

// Short graces, so each rule is seen within a test's second.
QueueOptions impatient(const TempQueueFolder& folder, std::vector<PassedOver>* passed = nullptr) {
  QueueOptions o = quiet_options(folder);
  o.stopped_grace_s = 0.2;
  o.idle_holder_grace_s = 0.2;
  o.untaken_turn_grace_s = 0.2;
  o.timeout_s = 5;
  if (passed != nullptr) {
    o.on_wait = [passed](const QueueView& view) {
      for (const auto& p : view.passed_over) passed->push_back(p);
    };
  }
  return o;
}

// A child that takes the turn and holds it until killed.
std::unique_ptr<Child> holding_child(const TempQueueFolder& folder) {
  auto child = std::make_unique<Child>([&folder](Child& self) -> int {
    const GpuTurn turn = take_gpu_turn(kGpu, quiet_options(folder));
    self.ready();
    for (;;) ::pause();
  });
  EXPECT_TRUE(child->wait_ready());
  return child;
}

TEST(QueueKernelFacts, ProcLocksGiveEachLockedInodeItsPid) {
  const FlockHolders holders = parse_proc_locks(
      "1: FLOCK  ADVISORY  WRITE 4242 08:01:5678 0 EOF\n"
      "1: -> FLOCK  ADVISORY  WRITE 77 08:01:5678 0 EOF\n"
      "2: POSIX  ADVISORY  WRITE 99 00:2f:12 0 EOF\n"
      "3: FLOCK  ADVISORY  WRITE 0 00:2f:13 0 EOF\n"
      "garbage\n4: FLOCK ADVISORY WRITE 12ab 00:2f:14 0 EOF\n");
  ASSERT_EQ(holders.size(), 1u);  // the waiter, the POSIX lock, pid 0 and garbage are skipped
  EXPECT_EQ(holders.begin()->second, 4242);
  EXPECT_EQ(holders.begin()->first.second, static_cast<ino_t>(5678));
}

TEST(QueueKernelFacts, TheStateLetterFollowsTheLastParenthesis) {
  EXPECT_EQ(parse_process_state("123 (a) b) T 1 2 3"), ProcessState::stopped);
  EXPECT_EQ(parse_process_state("123 (cudalab) t 1"), ProcessState::stopped);
  EXPECT_EQ(parse_process_state("123 (cudalab) S 1"), ProcessState::running);
  EXPECT_EQ(parse_process_state("123 (cudalab) Z 1"), ProcessState::gone);
  EXPECT_EQ(parse_process_state("no parenthesis"), ProcessState::unknown);
}

TEST(QueueKernelFacts, AStoppedChildReadsStoppedAndOurLockReadsOurPid) {
  TempQueueFolder folder;
  Child child([](Child& self) -> int {
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(child.wait_ready());
  child.kill(SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  while (process_state(child.pid()) != ProcessState::stopped && seconds_since(start) < 2) ::usleep(1000);
  EXPECT_EQ(process_state(child.pid()), ProcessState::stopped);
  child.kill(SIGCONT);

  const int fd = ::open((folder.path() + "/locked").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  const FlockHolders holders = read_flock_holders();
  const auto it = holders.find({st.st_dev, st.st_ino});
  ASSERT_NE(it, holders.end());
  EXPECT_EQ(it->second, ::getpid());
  ::close(fd);
}

TEST(QueueRules, AStoppedHolderIsPassedOverAndNamedByPidAndUser) {
  TempQueueFolder folder;
  auto holder = holding_child(folder);
  holder->kill(SIGSTOP);
  std::vector<PassedOver> passed;
  const auto start = std::chrono::steady_clock::now();
  const GpuTurn turn = take_gpu_turn(kGpu, impatient(folder, &passed));
  EXPECT_LT(seconds_since(start), 2.0);
  ASSERT_FALSE(passed.empty());
  EXPECT_EQ(passed.front().ticket.pid, std::to_string(holder->pid()));
  EXPECT_EQ(passed.front().ticket.user, queue_files::user_name(::geteuid()));
  EXPECT_NE(passed.front().why.en().find("stopped"), std::string::npos);
  EXPECT_NE(passed_over_line("GPU-8f0e1c2a", passed.front()).en().find(fmt::format("pid {}", holder->pid())),
            std::string::npos);
  holder->kill(SIGCONT);
}

TEST(QueueRules, AHolderWithoutAContextIsPassedOverOnlyWhenNvmlSaysSo) {
  TempQueueFolder folder;
  auto holder = holding_child(folder);
  QueueOptions has_one = impatient(folder);
  has_one.has_context = [](const std::string&, long) { return std::optional<bool>(true); };
  has_one.timeout_s = 0.8;  // running, with its context: never passed over, however long
  EXPECT_THROW(take_gpu_turn(kGpu, has_one), QueueTimeoutError);
  QueueOptions cannot_tell = impatient(folder);
  cannot_tell.has_context = [](const std::string&, long) { return std::optional<bool>(); };
  cannot_tell.timeout_s = 0.8;
  EXPECT_THROW(take_gpu_turn(kGpu, cannot_tell), QueueTimeoutError);

  std::vector<PassedOver> passed;
  QueueOptions has_none = impatient(folder, &passed);
  has_none.has_context = [&](const std::string&, long pid) { return std::optional<bool>(pid != holder->pid()); };
  const GpuTurn turn = take_gpu_turn(kGpu, has_none);
  ASSERT_FALSE(passed.empty());
  EXPECT_NE(passed.front().why.en().find("without a CUDA context"), std::string::npos);
}

TEST(QueueRules, ALowTicketWhoseTurnIsNeverTakenIsPassedOver) {
  TempQueueFolder folder;
  // Someone who holds a flock on ticket 1 and never runs cudalab.
  Child squatter([&folder](Child& self) -> int {
    ::mkdir(folder.gpu(kGpu).c_str(), 01777);
    const int fd = ::open((folder.gpu(kGpu) + "/t-00000000000000000001").c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) return 1;
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(squatter.wait_ready());
  std::vector<PassedOver> passed;
  const auto start = std::chrono::steady_clock::now();
  const GpuTurn turn = take_gpu_turn(kGpu, impatient(folder, &passed));
  EXPECT_LT(seconds_since(start), 2.0);
  ASSERT_EQ(passed.size() >= 1, true);
  EXPECT_EQ(passed.front().ticket.number, 1u);
  EXPECT_EQ(passed.front().ticket.pid, std::to_string(squatter.pid()));  // from /proc/locks
  EXPECT_NE(passed.front().why.en().find("did not take it"), std::string::npos);
}

TEST(QueueRules, AWaiterThatTakesItsTurnIsNeverPassedOver) {
  TempQueueFolder folder;
  auto holder = holding_child(folder);
  // A cudalab waiter behind the holder: it takes its turn as soon as the holder leaves.
  Child second([&folder](Child& self) -> int {
    self.ready();
    const GpuTurn turn = take_gpu_turn(kGpu, quiet_options(folder));
    return self.wait_go() ? 0 : 1;
  });
  ASSERT_TRUE(second.wait_ready());
  ::usleep(200 * 1000);  // it has its ticket
  std::vector<PassedOver> passed;
  QueueOptions o = impatient(folder, &passed);
  o.timeout_s = 1.0;
  holder->kill(SIGKILL);
  EXPECT_THROW(take_gpu_turn(kGpu, o), QueueTimeoutError);  // the second took the turn and holds it
  EXPECT_TRUE(passed.empty());
  second.go();
  EXPECT_EQ(second.wait_exit(5), 0);
}

TEST(QueueRules, ARunPassedOverKnowsSomeoneHeldTheTurnBesideIt) {
  TempQueueFolder folder;
  GpuTurn ours = take_gpu_turn(kGpu, quiet_options(folder));
  Child other([&folder](Child& self) -> int {
    QueueOptions o = quiet_options(folder);
    o.has_context = [](const std::string&, long) { return std::optional<bool>(false); };  // as if ours had none
    o.idle_holder_grace_s = 0.1;
    o.timeout_s = 5;
    const GpuTurn turn = take_gpu_turn(kGpu, o);
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(other.wait_ready());
  ours.release();
  EXPECT_TRUE(ours.record().shared);
}

TEST(QueueRules, InstructorsGoAheadOfWaitingStudentsButNeverPreemptTheHolder) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a student's ticket owned by another user";
  TempQueueFolder folder;
  constexpr uid_t kStudent = 4242;
  // The instructors file: owned by the folder's owner (root), writable by nobody else.
  {
    const int fd = ::open((folder.path() + "/instructors").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::string text = "# course staff\n0\n";
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
  }
  ASSERT_EQ(::mkdir(folder.gpu(kGpu).c_str(), 01777), 0);
  auto student_ticket = [&](int number) {
    const std::string path = folder.gpu(kGpu) + fmt::format("/t-{:020d}", number);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    EXPECT_EQ(::fchown(fd, kStudent, kStudent), 0);
    EXPECT_EQ(::flock(fd, LOCK_EX), 0);
    return fd;
  };
  const int waiting_student = student_ticket(1);  // arrived first, waiting (and it would take its turn)
  QueueOptions o = quiet_options(folder);
  o.untaken_turn_grace_s = 60;  // the student is not passed over here: the instructor simply goes first
  o.timeout_s = 2;
  const auto start = std::chrono::steady_clock::now();
  {
    const GpuTurn instructor = take_gpu_turn(kGpu, o);
    EXPECT_LT(seconds_since(start), 1.0);
  }
  // A student holding the turn is never preempted, instructor or not.
  Child holder([&](Child& self) -> int {
    const std::string path = folder.gpu(kGpu) + "/h-00000000000000000002";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0 || ::fchown(fd, kStudent, kStudent) != 0 || ::flock(fd, LOCK_EX) != 0) return 1;
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(holder.wait_ready());
  o.timeout_s = 0.8;
  EXPECT_THROW(take_gpu_turn(kGpu, o), QueueTimeoutError);
  ::close(waiting_student);
}

TEST(QueueRules, AnInstructorsFileOthersCanWriteIsNotTrusted) {
  TempQueueFolder folder;
  const std::string path = folder.path() + "/instructors";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_EQ(::write(fd, "0\n", 2), 2);
  ::close(fd);
  ::chmod(folder.path().c_str(), 01777);
  const queue_files::Fd root = queue_files::open_queue_root(folder.path());
  std::string why;
  EXPECT_EQ(read_instructors(root.get(), &why).count(0), ::geteuid() == 0 ? 1u : 0u);
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  EXPECT_TRUE(read_instructors(root.get(), &why).empty());
  EXPECT_NE(why.find("writable by others"), std::string::npos);
}

TEST(QueueRules, DeviceAutoSpreadsStudentsWhoStartTogether) {
  TempQueueFolder folder;
  const std::vector<std::string> gpus{kGpu, kOtherGpu};
  std::vector<std::unique_ptr<Child>> students;
  for (int i = 0; i < 4; ++i) {
    students.push_back(std::make_unique<Child>([&](Child& self) -> int {
      QueueOptions o = quiet_options(folder);
      o.untaken_turn_grace_s = 60;
      const AutoTurn chosen = take_turn_on_shortest_queue(gpus, o);
      self.ready();
      self.wait_go();
      return static_cast<int>(chosen.index);
    }));
  }
  // Two hold a turn at once (one per GPU); the others wait behind them, one on each GPU. On a
  // loaded machine the four may take a while to get into line: wait for all four tickets.
  int ready = 0;
  const auto start = std::chrono::steady_clock::now();
  while ((ready < 2 || queue_length(kGpu, folder.path()) + queue_length(kOtherGpu, folder.path()) < 4) &&
         seconds_since(start) < 10) {
    for (auto& s : students) ready += s->wait_ready(0.01) ? 1 : 0;
  }
  EXPECT_EQ(ready, 2);
  EXPECT_EQ(queue_length(kGpu, folder.path()), 2);
  EXPECT_EQ(queue_length(kOtherGpu, folder.path()), 2);
  for (auto& s : students) s->go();  // each reads it once it holds its turn, then leaves
  int on_first = 0;
  for (auto& s : students) on_first += s->wait_exit(5) == 0 ? 1 : 0;
  EXPECT_EQ(on_first, 2);
}

// --device auto counts each line while others take their turns, which renames a ticket from
// waiting to holding. A count taken across that rename must still see the ticket: before it did,
// a class starting together sometimes put three students on one GPU and one on the other.
TEST(QueueRules, ATicketIsCountedWhileItsTurnIsTaken) {
  TempQueueFolder folder;
  int counts = 0, miscounts = 0;
  for (int round = 0; round < 100; ++round) {
    Child student([&](Child& self) -> int {
      const QueueOptions o = quiet_options(folder);
      auto ticket = std::make_unique<QueueTicket>(QueueTicket::enter(kGpu, o));
      self.ready();
      self.wait_go();
      const GpuTurn turn = wait_for_turn(std::move(ticket), o);
      self.ready();
      self.wait_go();
      return 0;
    });
    ASSERT_TRUE(student.wait_ready(5));
    student.go();  // it takes its turn now, while this process counts the line again and again
    while (!student.wait_ready(0)) {
      ++counts;
      miscounts += queue_length(kGpu, folder.path()) == 1 ? 0 : 1;
    }
    student.go();
    ASSERT_EQ(student.wait_exit(5), 0);
  }
  EXPECT_GT(counts, 0);
  EXPECT_EQ(miscounts, 0) << "of " << counts << " counts";
}

}  // namespace
}  // namespace cudalab
