// An idle cudalab process (a context, no measurement) is told from a working one by its locked
// present file, which only the kernel's facts vouch for.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/queue/gpu_presence.hpp"
#include "common/gpu/preflight.hpp"
#include "queue_test_support.hpp"

namespace cudalab {
namespace {

using testing_support::Child;
using testing_support::TempQueueFolder;

const std::string& kGpu = testing_support::kTestGpu;
constexpr uid_t kOtherUid = 4242;

int count_idle(const TempQueueFolder& folder, pid_t pid) { return count_idle_cudalab(kGpu, {pid}, folder.path()); }

TEST(GpuPresence, IdleBetweenMeasurementsWorkingWhileMeasuringGoneWhenDead) {
  TempQueueFolder folder;
  Child student([&](Child& self) -> int {
    announce_gpu_presence(kGpu, folder.path());
    announce_gpu_presence(kGpu, folder.path());  // twice is once
    self.ready();
    self.wait_go();
    {
      const MeasuringScope measuring;
      self.ready();
      self.wait_go();
    }
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(student.wait_ready());
  EXPECT_EQ(count_idle(folder, student.pid()), 1);
  student.go();
  ASSERT_TRUE(student.wait_ready());
  EXPECT_EQ(count_idle(folder, student.pid()), 0);  // measuring: it counts as working
  student.go();
  ASSERT_TRUE(student.wait_ready());
  EXPECT_EQ(count_idle(folder, student.pid()), 1);
  student.kill(SIGKILL);
  ASSERT_TRUE(student.wait_exit(5).has_value());
  EXPECT_EQ(count_idle(folder, student.pid()), 0);  // its file is left, unlocked: not vouched for
  const std::string left = folder.gpu(kGpu) + "/present-" + std::to_string(student.pid());
  EXPECT_TRUE(std::filesystem::exists(left));
  Child next([&](Child& self) -> int {  // the next process of the same user clears it away
    announce_gpu_presence(kGpu, folder.path());
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(next.wait_ready());
  EXPECT_FALSE(std::filesystem::exists(left));
  EXPECT_EQ(count_idle(folder, next.pid()), 1);
}

TEST(GpuPresence, ThisProcessAndMissingFoldersCountForNothing) {
  TempQueueFolder folder;
  EXPECT_EQ(count_idle(folder, ::getpid()), 0);
  EXPECT_EQ(count_idle_cudalab("not a uuid/..", {::getpid()}, folder.path()), 0);
  EXPECT_EQ(count_idle_cudalab(kGpu, {1, 0, -5}, folder.path() + "/missing"), 0);
}

TEST(GpuPresence, OnlyALockedRegularFileOfTheProcessOwnerVouches) {
  TempQueueFolder folder;
  ASSERT_EQ(::mkdir(folder.gpu(kGpu).c_str(), 01777), 0);
  Child other([&](Child& self) -> int {  // a process that never announced itself
    self.ready();
    for (;;) ::pause();
  });
  ASSERT_TRUE(other.wait_ready());
  const std::string present = folder.gpu(kGpu) + "/present-" + std::to_string(other.pid());
  // A symlink to a locked file does not vouch.
  const int elsewhere = ::open((folder.path() + "/elsewhere").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_EQ(::flock(elsewhere, LOCK_EX), 0);
  ASSERT_EQ(::symlink((folder.path() + "/elsewhere").c_str(), present.c_str()), 0);
  EXPECT_EQ(count_idle(folder, other.pid()), 0);
  ASSERT_EQ(::unlink(present.c_str()), 0);
  // An unlocked file does not vouch; a locked one of the process's owner does.
  const int fd = ::open(present.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(count_idle(folder, other.pid()), 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  EXPECT_EQ(count_idle(folder, other.pid()), 1);
  // Locked, but owned by someone else than the process: another user cannot vouch for it.
  if (::fchown(fd, kOtherUid, kOtherUid) == 0) {
    EXPECT_EQ(count_idle(folder, other.pid()), 0);
  }
  ::close(fd);
  ::close(elsewhere);
}

TEST(GpuPresence, IdleCudalabProcessesAreNotOtherProcesses) {
  GpuActivity activity;
  activity.compute_processes = 4;  // this process, two idle students, one working
  activity.idle_cudalab_processes = 2;
  EXPECT_EQ(other_processes(activity), 1);
  activity.idle_cudalab_processes.reset();  // no queue folder to ask: every process counts
  EXPECT_EQ(other_processes(activity), 3);
  ClassroomSnapshot quiet;
  quiet.before = quiet.after = quiet.busiest_during = activity;
  quiet.before.idle_cudalab_processes = quiet.after.idle_cudalab_processes = 3;
  quiet.busiest_during.idle_cudalab_processes = 3;
  const auto items = classroom_items(DeviceInfo{}, quiet);
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items[0].key, "other_processes");
  EXPECT_TRUE(items[0].ok) << items[0].summary;
}

}  // namespace
}  // namespace cudalab
