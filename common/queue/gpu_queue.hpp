// Students take turns on a GPU. Every cudalab process on a host, from any user, queues for each
// GPU it measures on, in the order they arrived, and holds its turn only while it measures.
//
// Why flock: the lock belongs to an open file and the kernel drops it when the process dies, by
// a crash, a SIGKILL or the OOM killer alike. Nothing has to clean up after a dead student for the
// class to go on: the next in line sees the dead ticket unlocked within one poll (50 ms).
//
// Why tickets: a single lock file would let the kernel choose who goes next (whoever polls first),
// not the student who came first. Each waiter instead places a ticket file, flock'ed by its owner
// for as long as the owner waits or holds the turn; the turn belongs to the lowest-numbered live
// (locked) ticket. Numbers are handed out under a separate order lock ("order.lock"): the next
// number is one above every ticket name in the folder, so an arrival always sorts after everyone
// already there. A ticket appears already locked (written under a temporary name, locked, then
// hard-linked into place), so no one ever sees a live ticket unlocked.
//
// The folder: $CUDALAB_QUEUE_DIR or /tmp/cudalab-queue (mode 1777: everyone may write, only the
// owner may remove), and in it one folder per GPU, named by its UUID ("GPU-8f0e1c2a-..."), so
// processes that number their devices differently (CUDA_VISIBLE_DEVICES) still share one queue.
//
// What is trusted (see queue_files.hpp for how the files are opened): a ticket's number (its
// name), whether it is locked, and its owner uid, all from the kernel. What a ticket says (the
// lesson, pid and start of its holder) is shown in the waiting line and never obeyed. We refuse
// to keep our own ticket when someone else has removed or replaced it. Files we cannot open,
// symlinks and garbage are not tickets. A hostile user can still lock a low-numbered ticket and
// hold the GPU: the waiting line names that turn as stuck once it is held 3× its lesson's usual
// time, with its owner's user name from the kernel, so the instructor can act.
//
// A multi-GPU lesson takes its GPUs' turns in one order (sorted by UUID): no two lessons ever wait
// for each other's GPUs in a cycle. This needs no CUDA: the caller takes its turn before it
// creates a CUDA context, so a student waiting in the queue is invisible to NVML.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/core/errors.hpp"
#include "common/queue/queue_files.hpp"
#include "common/queue/queue_line.hpp"

namespace cudalab {

// --queue-timeout ran out: the message is one line (queue_timeout_line).
struct QueueTimeoutError : RuntimeError {
  using RuntimeError::RuntimeError;
};

// Time for the queue, injectable for tests.
class QueueClock {
 public:
  virtual ~QueueClock() = default;
  virtual double steady_s() = 0;               // monotonic: waits and timeouts
  virtual double wall_s() = 0;                 // since the epoch: the time written in a ticket
  virtual void sleep_s(double seconds) = 0;    // may return early when a signal arrives
};
QueueClock& system_queue_clock();

struct QueueOptions {
  std::string folder;                     // the queue folder; "" means queue_files::queue_root_path()
  std::string lesson;                     // this run's lesson, shown to others and looked up in turn_times
  TurnTimes turn_times;                   // lesson -> usual seconds on the GPU
  std::optional<double> timeout_s;        // --queue-timeout; unset: wait as long as it takes
  std::function<void(const QueueView&)> on_wait;  // unset: the waiting line on stderr
  std::function<void()> check_interrupt;  // unset: throw_if_interrupted (Ctrl-C, SIGTERM)
  QueueClock* clock = nullptr;            // unset: system_queue_clock()
  double poll_s = 0.05;
};

// What a turn cost: for the run's JSON ("queue": {"wait_s", "held_s", "position"}).
struct TurnRecord {
  double wait_s = 0;   // from asking for the turn to getting it
  double held_s = 0;   // from getting it to giving it back (so far, while held)
  int position = 0;    // runs ahead on arrival, the holder included: 0 = the GPU was free
};

// One place in one GPU's queue: a ticket file, flock'ed while this object lives.
class QueueTicket {
 public:
  // Takes the next number (waiting for the order lock, within `timeout_s` when set).
  static QueueTicket enter(const std::string& gpu_uuid, const QueueOptions& options);
  QueueTicket(QueueTicket&&) noexcept = default;
  QueueTicket& operator=(QueueTicket&&) noexcept = default;
  ~QueueTicket() { leave(); }

  std::uint64_t number() const { return number_; }
  const std::string& gpu_uuid() const { return gpu_uuid_; }
  // The live tickets before ours, lowest first: the first holds the GPU. Throws
  // QueueUnavailableError when our ticket was removed or replaced by someone else.
  std::vector<TicketInfo> ahead() const;
  // Writes "holding since" into our ticket, for the waiting lines of others.
  void mark_holding(double wall_s);
  // Removes the ticket and drops its lock (the kernel drops it anyway if we die).
  void leave() noexcept;

 private:
  QueueTicket() = default;
  std::string gpu_uuid_, name_, lesson_;
  std::uint64_t number_ = 0;
  queue_files::Fd folder_;
  queue_files::OpenedFile file_;
};

// The right to measure on one GPU: held from take_gpu_turn until release() or destruction
// (an exception unwinding included), and by the kernel until the process dies.
class GpuTurn {
 public:
  GpuTurn() = default;  // no turn: --no-queue
  GpuTurn(GpuTurn&&) noexcept = default;
  GpuTurn& operator=(GpuTurn&&) noexcept = default;
  ~GpuTurn() { release(); }
  bool held() const { return ticket_ != nullptr; }
  TurnRecord record() const;
  void release() noexcept;

 private:
  friend GpuTurn take_gpu_turn(const std::string&, const QueueOptions&);
  std::unique_ptr<QueueTicket> ticket_;
  QueueClock* clock_ = nullptr;
  double taken_at_ = 0;
  TurnRecord record_;
};

// Waits for this run's turn on the GPU, showing the waiting line. Throws InterruptedError
// (Ctrl-C, SIGTERM: checked every poll, within 50 ms), QueueTimeoutError, QueueUnavailableError.
GpuTurn take_gpu_turn(const std::string& gpu_uuid, const QueueOptions& options);

// Turns on several GPUs, taken one after another in UUID order (duplicates once); the timeout
// bounds the whole wait. Released together, in the reverse order.
class GpuTurns {
 public:
  GpuTurns() = default;  // none: --no-queue
  bool held() const { return !turns_.empty(); }
  // wait_s summed, held_s and position of the longest.
  TurnRecord record() const;
  void release() noexcept;
  GpuTurns(GpuTurns&&) noexcept = default;
  GpuTurns& operator=(GpuTurns&&) noexcept = default;
  ~GpuTurns() { release(); }

 private:
  friend GpuTurns take_gpu_turns(std::vector<std::string>, const QueueOptions&);
  std::vector<GpuTurn> turns_;
};
GpuTurns take_gpu_turns(std::vector<std::string> gpu_uuids, const QueueOptions& options);

// How many live tickets (waiting or holding) a GPU's queue has; 0 when its folder is unusable.
int queue_length(const std::string& gpu_uuid, const std::string& folder = "");
// --device auto: the index in `gpu_uuids` of the GPU with the shortest queue (the first of equals).
std::size_t shortest_queue(const std::vector<std::string>& gpu_uuids, const std::string& folder = "");

// The 16 bytes of cudaDeviceProp::uuid as NVML and nvidia-smi write them:
// "GPU-8f0e1c2a-1b2c-3d4e-5f60-718293a4b5c6".
std::string gpu_uuid_text(const unsigned char (&bytes)[16]);

}  // namespace cudalab
