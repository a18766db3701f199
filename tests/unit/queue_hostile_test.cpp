// The queue folder is shared by every user: what others leave there must not hang, redirect or
// mislead a cudalab process.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/queue/gpu_queue.hpp"
#include "queue_test_support.hpp"

namespace cudalab {
namespace {

using testing_support::FakeQueueClock;
using testing_support::quiet_options;
using testing_support::TempQueueFolder;

const std::string& kGpu = testing_support::kTestGpu;
constexpr uid_t kOtherUid = 4242;

std::string ticket_path(const TempQueueFolder& folder, int number) {
  return folder.gpu(kGpu) + "/" + fmt::format("t-{:020d}", number);
}

// A file holding `text`, flock'ed by the returned descriptor (closed by the caller).
int locked_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  EXPECT_GE(fd, 0) << path;
  EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  EXPECT_EQ(::flock(fd, LOCK_EX), 0);
  return fd;
}

TEST(GpuQueueHostile, SymlinksSpecialFilesAndGarbageAreNotTrusted) {
  TempQueueFolder folder;
  ASSERT_EQ(::mkdir(folder.gpu(kGpu).c_str(), 01777), 0);
  // 1: a symlink named like a ticket, to a locked file elsewhere; 2: a FIFO (opening it would
  // block); 3: a folder; 4: a live ticket of garbage; 5: another user's dead ticket.
  const int elsewhere = locked_file(folder.path() + "/elsewhere", "lesson stolen\n");
  ASSERT_EQ(::symlink((folder.path() + "/elsewhere").c_str(), ticket_path(folder, 1).c_str()), 0);
  ASSERT_EQ(::mkfifo(ticket_path(folder, 2).c_str(), 0666), 0);
  ASSERT_EQ(::mkdir(ticket_path(folder, 3).c_str(), 0777), 0);
  const int garbage = locked_file(ticket_path(folder, 4), "pid 12ab\nlesson \x1b[31mred\r\x7f\nholding since nan\n\xff\xfe");
  ::close(locked_file(ticket_path(folder, 5), "pid 1\n"));
  const bool can_chown = ::chown(ticket_path(folder, 5).c_str(), kOtherUid, kOtherUid) == 0;
  for (const char* name : {"t-abc", "t-99999999999999999999999", "t-18446744073709551616", "t-00000000000000000000"}) {
    ::close(locked_file(folder.gpu(kGpu) + "/" + name, "x"));
  }

  const QueueTicket ticket = QueueTicket::enter(kGpu, quiet_options(folder));
  EXPECT_EQ(ticket.number(), 6u);  // after every name that looks like a ticket
  const auto ahead = ticket.ahead();
  ASSERT_EQ(ahead.size(), 1u);  // only the locked regular file counts
  EXPECT_EQ(ahead[0].number, 4u);
  // The pid comes from the kernel's lock table, never from the ticket's text ("pid 12ab").
  EXPECT_EQ(ahead[0].pid, std::to_string(::getpid()));
  EXPECT_EQ(ahead[0].lesson.find('\x1b'), std::string::npos);
  EXPECT_EQ(ahead[0].lesson.find('\r'), std::string::npos);
  EXPECT_NE(ahead[0].lesson.find("red"), std::string::npos);
  EXPECT_FALSE(ahead[0].holding_since.has_value());
  struct stat st {};
  // Another user's file is never removed; our own dead one would have been.
  EXPECT_EQ(::lstat(ticket_path(folder, 5).c_str(), &st) == 0, can_chown);
  EXPECT_EQ(::lstat(ticket_path(folder, 1).c_str(), &st), 0);  // others' symlinks stay too
  ::close(garbage);
  ::close(elsewhere);
}

TEST(GpuQueueHostile, ASymlinkedQueueFolderIsRefusedInOneLine) {
  TempQueueFolder folder;
  const std::string link = folder.path() + "/link";
  ASSERT_EQ(::mkdir((folder.path() + "/real").c_str(), 01777), 0);
  ASSERT_EQ(::symlink((folder.path() + "/real").c_str(), link.c_str()), 0);
  QueueOptions o = quiet_options(folder);
  o.folder = link;
  try {
    QueueTicket::enter(kGpu, o);
    FAIL() << "a symlinked queue folder was used";
  } catch (const QueueUnavailableError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--no-queue"), std::string::npos) << e.what();
  }
  // A symlinked GPU folder inside a good queue folder is refused as well.
  ASSERT_EQ(::symlink((folder.path() + "/real").c_str(), folder.gpu(kGpu).c_str()), 0);
  EXPECT_THROW(QueueTicket::enter(kGpu, quiet_options(folder)), QueueUnavailableError);
}

TEST(GpuQueueHostile, TheQueueFolderMustBeSticky) {
  TempQueueFolder folder;
  const std::string root = folder.path() + "/queue";
  QueueOptions o = quiet_options(folder);
  o.folder = root;
  ASSERT_EQ(::mkdir(root.c_str(), 0700), 0);
  { const QueueTicket ticket = QueueTicket::enter(kGpu, o); }  // ours: its mode is put right
  struct stat st {};
  ASSERT_EQ(::stat(root.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  ASSERT_EQ(::stat((root + "/" + kGpu).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  ASSERT_EQ(::chmod(root.c_str(), 0777), 0);
  if (::chown(root.c_str(), kOtherUid, kOtherUid) != 0) GTEST_SKIP() << "cannot give a folder to another user here";
  EXPECT_THROW(QueueTicket::enter(kGpu, o), QueueUnavailableError);  // not sticky, and not ours to fix
}

// A queue folder is never seen with the umask's mode: it is made under a private name and renamed
// into place at 01777 (a student who came while its maker had not yet chmod-ed it was refused),
// and it leaves no private name behind, made or found.
TEST(GpuQueueHostile, AQueueFolderAppearsWithItsModeWhateverTheUmask) {
  TempQueueFolder folder;
  const std::string root = folder.path() + "/queue";
  QueueOptions o = quiet_options(folder);
  o.folder = root;
  const mode_t saved = ::umask(077);
  { const QueueTicket ticket = QueueTicket::enter(kGpu, o); }
  { const QueueTicket again = QueueTicket::enter(kGpu, o); }  // found, not made
  ::umask(saved);
  struct stat st {};
  ASSERT_EQ(::stat(root.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  ASSERT_EQ(::stat((root + "/" + kGpu).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 01777u);
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".new-"), std::string::npos) << entry.path();
  }
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    EXPECT_EQ(entry.path().filename().string().find(".new-"), std::string::npos) << entry.path();
  }
}

TEST(GpuQueueHostile, ARemovedTicketIsNoticed) {
  TempQueueFolder folder;
  const QueueTicket ticket = QueueTicket::enter(kGpu, quiet_options(folder));
  ASSERT_EQ(::unlink(ticket_path(folder, static_cast<int>(ticket.number())).c_str()), 0);
  EXPECT_THROW(ticket.ahead(), QueueUnavailableError);
  // Replaced by another file of the same name: still not ours.
  ::close(locked_file(ticket_path(folder, static_cast<int>(ticket.number())), "pid 1\n"));
  EXPECT_THROW(ticket.ahead(), QueueUnavailableError);
}

TEST(GpuQueueHostile, AHeldOrderLockCannotHangTheWait) {
  TempQueueFolder folder;
  { const QueueTicket first = QueueTicket::enter(kGpu, quiet_options(folder)); }
  const int order = locked_file(folder.gpu(kGpu) + "/order.lock", "");
  FakeQueueClock clock;
  QueueOptions o = quiet_options(folder);
  o.clock = &clock;
  o.timeout_s = 2.5;
  std::vector<QueueView> views;
  o.on_wait = [&](const QueueView& view) { views.push_back(view); };
  EXPECT_THROW(QueueTicket::enter(kGpu, o), QueueTimeoutError);
  ASSERT_FALSE(views.empty());  // after two seconds the waiting line says why
  EXPECT_TRUE(views.back().order_lock_busy);
  EXPECT_NE(waiting_line(views.back()).en().find("order.lock is held by another process"), std::string::npos);
  ::close(order);
  // An order lock that is a symlink is refused rather than followed.
  ASSERT_EQ(::unlink((folder.gpu(kGpu) + "/order.lock").c_str()), 0);
  ASSERT_EQ(::symlink("/etc/passwd", (folder.gpu(kGpu) + "/order.lock").c_str()), 0);
  EXPECT_THROW(QueueTicket::enter(kGpu, quiet_options(folder)), QueueUnavailableError);
}

}  // namespace
}  // namespace cudalab
