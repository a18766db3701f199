// Students take turns on a GPU. Every cudalab process on a host, from any user, queues for each
// GPU it measures on, in the order they arrived, and holds its turn only while it measures.
//
// Why flock: the lock belongs to an open file and the kernel drops it when the process dies, by
// a crash, a SIGKILL or the OOM killer alike. Nothing has to clean up after a dead student for the
// class to go on: the next in line sees the dead ticket unlocked within one poll (50 ms).
//
// Tickets: each waiter places a ticket file "t-<number>", flock'ed by its owner for as long as it
// waits or holds the turn. Numbers are handed out under an order lock ("order.lock"): one above
// every ticket in the folder, so an arrival sorts after everyone already there. A ticket appears
// already locked (written under a temporary name, locked, then hard-linked into place).
//
// The turn: a waiter takes it, under the order lock, when no live holder counts and it is first in
// line; taking it renames its ticket "h-<number>" (the lock stays with the file). Line order is
// instructors first (users named in the queue folder's trusted "instructors" file, holders.hpp),
// then everyone else, each by number. A holder is never preempted, instructor or not.
//
// Turns that do not move. A ticket ahead of ours stops counting ("passed over", said in one line
// naming its pid and user, both from the kernel: /proc/locks and the file's owner) when:
//   - the process holding its lock is stopped (Ctrl-Z, kill -STOP) for `stopped_grace_s`;
//   - it holds the turn and has no CUDA context on the GPU for `idle_holder_grace_s` (a lock
//     holder that is not a measuring cudalab);
//   - it is first in line with no holder ahead, and has not taken the turn for
//     `untaken_turn_grace_s` (a cudalab takes it within one poll).
// A holder that runs and has its context is never passed over, however long its lesson takes.
// A cudalab that was stopped while it held its turn measures again when continued
// (common/core/interrupt.hpp); a holder that finds another holder beside it when it gives its turn
// back says so in its TurnRecord, and its run is reported disturbed.
//
// The folder: $CUDALAB_QUEUE_DIR or /tmp/cudalab-queue (mode 1777: everyone may write, only the
// owner may remove), and in it one folder per GPU, named by its UUID ("GPU-8f0e1c2a-..."), so
// processes that number their devices differently (CUDA_VISIBLE_DEVICES) still share one queue.
//
// What is trusted (see queue_files.hpp for how the files are opened): a ticket's number and state
// (its name), whether it is locked and by which pid, its owner uid, all from the kernel. What a
// ticket says (the lesson and when its holder started) is shown and never obeyed. Files we cannot
// open, symlinks and garbage are not tickets.
//
// A multi-GPU lesson takes its GPUs' turns in one order (sorted by UUID): no two lessons ever wait
// for each other's GPUs in a cycle. This needs no CUDA: the caller takes its turn before it
// creates a CUDA context, so a student waiting in the queue is invisible to NVML.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/core/errors.hpp"
#include "common/queue/holders.hpp"
#include "common/queue/queue_files.hpp"
#include "common/queue/queue_line.hpp"
#include "common/queue/turn_log.hpp"

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
  TurnTimes turn_times;                   // lesson -> stated seconds on the GPU (learned turns override)
  std::optional<double> timeout_s;        // --queue-timeout; unset: wait as long as it takes
  std::function<void(const QueueView&)> on_wait;  // unset: the waiting line on stderr
  std::function<std::string(const Message&)> words;  // renders the queue's lines (unset: English, Message::en)
  std::function<void()> check_interrupt;  // unset: throw_if_interrupted (Ctrl-C, SIGTERM)
  QueueClock* clock = nullptr;            // unset: system_queue_clock()
  double poll_s = 0.05;

  // Whether process `pid` has a CUDA context on GPU `gpu_uuid`; nullopt when that cannot be told
  // (no NVML, or its pids are not ours). Unset: never known, so no holder is passed over for it.
  std::function<std::optional<bool>(const std::string& gpu_uuid, long pid)> has_context;
  // The kernel's facts, injectable for tests. Unset: read_flock_holders() and process_state().
  std::function<FlockHolders()> flock_holders;
  std::function<ProcessState(long pid)> process_state;
  double stopped_grace_s = 2.0;
  double idle_holder_grace_s = 4.0;
  double untaken_turn_grace_s = 2.0;
};

// What a turn cost: for the run's JSON ("queue": {"wait_s", "held_s", "position"}).
struct TurnRecord {
  double wait_s = 0;   // from asking for the turn to getting it
  double held_s = 0;   // from getting it to giving it back (so far, while held)
  double taken_at = 0;  // when it was taken: wall-clock seconds since the epoch
  int position = 0;    // runs ahead on arrival, the holder included: 0 = the GPU was free
  // Another run held this GPU's turn beside this one when it gave the turn back: this run was
  // passed over (stopped, or slow to use the GPU) and someone else measured meanwhile.
  bool shared = false;
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
  // Every live ticket in this GPU's folder, ours included, as the kernel tells it. Throws
  // QueueUnavailableError when our ticket was removed or replaced by someone else.
  std::vector<TicketInfo> live() const;
  std::vector<TicketInfo> live(const QueueOptions& options) const;  // with its injected kernel facts
  // The live tickets before ours in line order, none passed over (for the waiting line and tests).
  std::vector<TicketInfo> ahead() const;
  // Another live ticket holds the turn beside ours (we were passed over).
  bool another_holder() const;
  // Under the order lock: takes the turn (renames the ticket "h-<number>") when `still_ours_to_take`
  // agrees on the tickets as they are now. False when it does not.
  bool take(const std::function<bool(const std::vector<TicketInfo>&)>& still_ours_to_take, const QueueOptions& options);
  bool holding() const { return holding_; }
  // Writes "holding since" into our ticket, for the waiting lines of others.
  void mark_holding(double wall_s);
  // Removes the ticket and drops its lock (the kernel drops it anyway if we die).
  void leave() noexcept;
  // What this GPU's folder has learned of every lesson's turns (turn_log.hpp).
  LearnedTurns learned() const;
  // Adds an ended turn of this ticket's lesson to this user's learned turns (best effort).
  void remember(double held_s, double given_back_at) const noexcept;

 private:
  QueueTicket() = default;
  std::string gpu_uuid_, name_, lesson_;
  std::uint64_t number_ = 0;
  bool holding_ = false;
  std::set<uid_t> instructors_;
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
  // Gives the turn back without teaching the queue anything (the run failed, was stopped or
  // interrupted: its length says nothing about the lesson's).
  void release() noexcept;
  // Gives back the turn of a run that measured to its end: its length is learned for the
  // lesson (turn_log.hpp), unless another run held the GPU beside it.
  void release_finished() noexcept;

 private:
  friend GpuTurn wait_for_turn(std::unique_ptr<QueueTicket>, const QueueOptions&);
  void give_back(bool learn) noexcept;
  std::unique_ptr<QueueTicket> ticket_;
  QueueClock* clock_ = nullptr;
  double taken_at_ = 0;
  TurnRecord record_;
};

// Waits for this run's turn on the GPU, showing the waiting line. Throws InterruptedError
// (Ctrl-C, SIGTERM: checked every poll, within 50 ms), QueueTimeoutError, QueueUnavailableError.
GpuTurn take_gpu_turn(const std::string& gpu_uuid, const QueueOptions& options);
// The same with a place already taken (QueueTicket::enter).
GpuTurn wait_for_turn(std::unique_ptr<QueueTicket> ticket, const QueueOptions& options);

// Turns on several GPUs, taken one after another in UUID order (duplicates once); the timeout
// bounds the whole wait. Released together, in the reverse order.
class GpuTurns {
 public:
  GpuTurns() = default;  // none: --no-queue
  explicit GpuTurns(GpuTurn turn) { turns_.push_back(std::move(turn)); }
  bool held() const { return !turns_.empty(); }
  // wait_s summed, held_s and position of the longest.
  TurnRecord record() const;
  void release() noexcept;
  void release_finished() noexcept;  // GpuTurn::release_finished on each
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

// --device auto for a class: picks the GPU with the shortest queue and takes a place in it in one
// step, under the queue folder's "auto.lock", so students who start in the same second spread
// evenly (each one's ticket is counted by the next). Returns the index in `gpu_uuids` chosen and
// its turn, waited for as take_gpu_turn waits.
struct AutoTurn {
  std::size_t index = 0;
  GpuTurn turn;
};
AutoTurn take_turn_on_shortest_queue(const std::vector<std::string>& gpu_uuids, const QueueOptions& options);

// The 16 bytes of cudaDeviceProp::uuid as NVML and nvidia-smi write them:
// "GPU-8f0e1c2a-1b2c-3d4e-5f60-718293a4b5c6".
std::string gpu_uuid_text(const unsigned char (&bytes)[16]);

}  // namespace cudalab
