// What a student sees while waiting for a turn on a GPU (gpu_queue.hpp): one line on stderr,
// rewritten in place on a terminal and printed again only when it says something new otherwise.
//
//   cudalab: waiting 4.2 s for GPU-8f0e1c2a · 2 ahead of you · now stream-overlap of bob (pid 1234),
//            1.2 s in · about 6 s to wait
//
// Everything about the other runs comes from their ticket files, which anyone can write: the
// lesson and the pid are shown (escaped, cut short), never obeyed. The user is the ticket file's
// owner as the kernel reports it. A turn held far past its lesson's usual time is named, so the
// instructor can act on a stuck (or hostile) process.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// How long each lesson usually holds the GPU (seconds, its recorded GPU time): the estimate of
// the wait and the "may be stuck" rule read it. Lessons are named as QueueOptions::lesson names
// them; one missing from the table counts as the table's median.
struct TurnTimes {
  std::map<std::string, double> by_lesson;
  std::optional<double> typical(const std::string& lesson) const;
};

// A live ticket: its number, state, owner and lock holder from the kernel; its lesson and
// "holding since" from its text, for display only.
struct TicketInfo {
  std::uint64_t number = 0;
  std::string lesson;                    // escaped and cut; "?" when the ticket does not say
  std::string user;                      // the ticket file's owner
  std::string pid;                       // the pid holding its lock (/proc/locks); "?" when unknown
  std::optional<double> holding_since;   // wall-clock seconds, when its run took the turn
  bool holding = false;                  // it holds the turn (named "h-<number>")
  bool instructor = false;               // its owner is in the trusted instructors file
  bool ours = false;                     // this process's own ticket
  long locker_pid = 0;                   // as `pid`, 0 when unknown
  unsigned owner_uid = 0;
  unsigned long long device = 0, inode = 0;  // the file's identity, to find its lock holder
};

// A ticket ahead that no longer counts, and why ("its process is stopped (Ctrl-Z or kill -STOP)
// for 2 s": words, translated with the line that names it).
struct PassedOver {
  TicketInfo ticket;
  Message why;
};

struct QueueView {
  std::string gpu;          // "GPU-8f0e1c2a": the UUID, shortened
  double waited_s = 0;      // how long this run has waited so far
  int ahead = 0;            // runs before this one, the one holding the GPU included
  std::optional<TicketInfo> holder;
  double held_s = 0;                    // how long the holder has held the turn
  std::optional<double> holder_usual_s; // its lesson's usual time
  std::optional<double> estimate_s;     // the wait still to come
  bool holder_stuck = false;
  // No place in the queue yet: someone has held its order lock for seconds (a stuck or hostile
  // process: a cudalab holds it for microseconds).
  bool order_lock_busy = false;
  // Tickets ahead that were passed over (gpu_queue.hpp), each shown once in a line of its own.
  std::vector<PassedOver> passed_over;
};

// "cudalab: passed over ticket 12 of bob (pid 4242) on GPU-8f0e1c2a: its process is stopped (Ctrl-Z or
// kill -STOP) for 2 s"
Message passed_over_line(const std::string& gpu, const PassedOver& passed);

// The view of a queue from its live tickets ahead of ours (lowest first). `now_wall` is the
// wall clock; `holder_seen_since` is when this run first saw the current holder at the head
// (wall clock), used when the holder's own "since" is missing or implausible.
QueueView make_queue_view(const std::string& gpu_uuid, double waited_s, const std::vector<TicketInfo>& ahead,
                          const TurnTimes& times, double now_wall, double holder_seen_since);

// A turn held at least 3 times its lesson's usual time, and at least 10 s.
bool turn_looks_stuck(double held_s, std::optional<double> usual_s);

// "2.4 s", "38 s", "3 min 20 s".
Message format_wait(double seconds);

// The waiting line (without a line break): its parts, each a template of its own, joined with " · ".
Message waiting_line(const QueueView& view);

// Why the wait ended after `timeout_s` (--queue-timeout), in one line without "cudalab:".
Message queue_timeout_line(const QueueView& view, double timeout_s);

// Draws the waiting line: rewritten in place on a terminal (at most five times a second, cut to
// the terminal's width), printed again only when it says something new otherwise (a different
// place in the queue, holder or verdict, not a different number of seconds).
class WaitingLine {
 public:
  // On `out` (stderr by default): whether it is a terminal, and its width, are asked.
  explicit WaitingLine(std::FILE* out = stderr);
  WaitingLine(std::FILE* out, bool terminal, std::size_t columns);
  // A line left on a terminal is erased, so whatever is printed next starts a clean line.
  ~WaitingLine();
  WaitingLine(const WaitingLine&) = delete;
  WaitingLine& operator=(const WaitingLine&) = delete;
  void show(const QueueView& view);
  // The turn came: erase the line on a terminal, say so in one line otherwise (only when a
  // waiting line was printed).
  void done(const std::string& gpu_uuid, double waited_s);
  // The user's language: each line is rendered by `words` before it is printed (unset: English).
  void set_words(std::function<std::string(const Message&)> words) { words_ = std::move(words); }

 private:
  std::string in_words(const Message& line) const { return words_ ? words_(line) : line.en(); }

  std::FILE* out_;
  std::function<std::string(const Message&)> words_;
  bool terminal_;
  std::size_t columns_;
  std::string last_key_;
  double last_drawn_at_ = -1;
  bool drawn_ = false;
  std::vector<std::uint64_t> announced_;  // tickets whose passing over was said
};

}  // namespace cudalab
