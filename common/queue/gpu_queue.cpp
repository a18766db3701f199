#include "common/queue/gpu_queue.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

using namespace queue_files;

// A ticket's text is a few short lines; no more is ever read of one.
constexpr std::size_t kTicketTextLimit = 512;
constexpr std::size_t kLessonChars = 40;
constexpr std::string_view kTicketPrefix = "t-";
constexpr std::size_t kTicketDigits = 20;
constexpr double kOrderLockPoll_s = 0.002;

class SystemQueueClock final : public QueueClock {
 public:
  double steady_s() override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  double wall_s() override {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  // One nanosleep, not restarted: a signal (Ctrl-C, SIGTERM) ends the pause at once and the
  // caller checks the interrupt flag.
  void sleep_s(double seconds) override {
    if (!(seconds > 0)) return;
    struct timespec pause {};
    pause.tv_sec = static_cast<time_t>(seconds);
    pause.tv_nsec = static_cast<long>((seconds - static_cast<double>(pause.tv_sec)) * 1e9);
    ::nanosleep(&pause, nullptr);
  }
};

// The clock, the interrupt check and the deadline of one wait.
class Patience {
 public:
  explicit Patience(const QueueOptions& o)
      : clock_(o.clock != nullptr ? *o.clock : system_queue_clock()),
        check_(o.check_interrupt),
        start_(clock_.steady_s()),
        deadline_(o.timeout_s ? start_ + std::max(0.0, *o.timeout_s) : std::numeric_limits<double>::infinity()) {}
  QueueClock& clock() { return clock_; }
  double waited() { return clock_.steady_s() - start_; }
  bool out_of_time() { return clock_.steady_s() >= deadline_; }
  void check() { check_ ? check_() : throw_if_interrupted(); }
  void pause(double seconds) { clock_.sleep_s(std::min(seconds, std::max(0.0, deadline_ - clock_.steady_s()))); }

 private:
  QueueClock& clock_;
  const std::function<void()>& check_;
  double start_, deadline_;
};

std::string ticket_name(std::uint64_t number, bool holding = false) {
  return fmt::format("{}-{:020d}", holding ? 'h' : 't', number);
}

// "t-<20 digits>" (waiting) or "h-<20 digits>" (holding the turn) -> (number, holding).
std::optional<std::pair<std::uint64_t, bool>> parse_ticket_name(std::string_view name) {
  if (name.size() != kTicketPrefix.size() + kTicketDigits || name[1] != '-' || (name[0] != 't' && name[0] != 'h')) {
    return std::nullopt;
  }
  std::uint64_t number = 0;
  for (const char c : name.substr(kTicketPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (number > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    number = number * 10 + digit;
  }
  if (number == 0) return std::nullopt;
  return std::make_pair(number, name[0] == 'h');
}

std::string ticket_text(const std::string& lesson, std::optional<double> holding_since) {
  std::string text = fmt::format("cudalab queue ticket\nlesson {}\n", printable_value(lesson, kLessonChars));
  if (holding_since) text += fmt::format("holding since {:.3f}\n", *holding_since);
  return text;
}

// What a ticket says, kept only for display: anything unexpected reads as "?".
void read_ticket_text(std::string_view text, TicketInfo& info) {
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.rfind("lesson ", 0) == 0 && line.size() > 7) {
      info.lesson = printable_value(line.substr(7), kLessonChars);
    } else if (line.rfind("holding since ", 0) == 0) {
      const std::string value(line.substr(14, 40));
      char* parsed_end = nullptr;
      const double since = std::strtod(value.c_str(), &parsed_end);
      if (parsed_end != value.c_str() && *parsed_end == '\0' && std::isfinite(since)) info.holding_since = since;
    }
  }
}

// Every live (locked) ticket in a GPU's folder, with its lock holder's pid from the kernel.
std::vector<TicketInfo> live_tickets(int folder, const FlockHolders& holders, const std::set<uid_t>& instructors,
                                     const FileFacts* ours) {
  std::vector<TicketInfo> live;
  for (const auto& name : list_names(folder, kMaxFolderEntries)) {
    auto parsed = parse_ticket_name(name);
    if (!parsed) continue;
    auto file = open_regular(folder, name);
    // A waiter taking its turn renames t-N to h-N (QueueTicket::take): one that did so since the
    // folder was listed is still in the line, under its new name.
    if (!file && !parsed->second) {
      file = open_regular(folder, ticket_name(parsed->first, true));
      parsed->second = true;
    }
    if (!file) continue;
    const auto is_this_file = [&](dev_t device, ino_t inode) {
      return file->facts.device == device && file->facts.inode == inode;
    };
    const auto seen = [&](const TicketInfo& t) { return is_this_file(t.device, t.inode); };
    if (std::any_of(live.begin(), live.end(), seen)) continue;  // listed under both names
    const bool is_ours = ours != nullptr && is_this_file(ours->device, ours->inode);
    if (!is_ours && !locked_by_someone(file->fd.get())) continue;
    TicketInfo info{parsed->first, "?", user_name(file->facts.owner), "?", std::nullopt};
    info.holding = parsed->second;
    info.ours = is_ours;
    info.owner_uid = file->facts.owner;
    info.instructor = instructors.count(file->facts.owner) != 0;
    info.device = file->facts.device;
    info.inode = file->facts.inode;
    const auto holder = holders.find({file->facts.device, file->facts.inode});
    if (is_ours) info.locker_pid = ::getpid();
    else if (holder != holders.end()) info.locker_pid = holder->second;
    if (info.locker_pid > 0) info.pid = std::to_string(info.locker_pid);
    read_ticket_text(read_head(file->fd.get(), kTicketTextLimit), info);
    live.push_back(std::move(info));
  }
  return live;
}

// Line order: holders, then instructors' tickets, then the others', each by number.
bool comes_before(const TicketInfo& a, const TicketInfo& b) {
  return std::make_tuple(!a.holding, !a.instructor, a.number) < std::make_tuple(!b.holding, !b.instructor, b.number);
}

// Under the order lock: removes our own dead tickets (a run of ours that was killed) and returns
// the highest number left in the folder, live or not, ours or not.
std::uint64_t highest_ticket_clearing_dead(int folder) {
  std::uint64_t highest = 0;
  for (const auto& name : list_names(folder, kMaxFolderEntries)) {
    const auto parsed = parse_ticket_name(name);
    if (!parsed) continue;
    auto file = open_regular(folder, name);
    const bool dead_and_ours = file && file->facts.owner == ::geteuid() && !locked_by_someone(file->fd.get());
    if (dead_and_ours && remove_if_ours(folder, name, file->facts)) continue;
    highest = std::max(highest, parsed->first);
  }
  return highest;
}

// The order lock is held for microseconds by a cudalab process; after a few seconds the waiting
// line says that someone is holding it.
constexpr double kOrderLockPatience_s = 2.0;

void wait_for_order_lock(int fd, Patience& patience, const std::string& gpu_uuid, const QueueOptions& o) {
  std::optional<WaitingLine> line;
  while (!try_lock(fd)) {
    patience.check();
    if (patience.waited() >= kOrderLockPatience_s) {
      QueueView view = make_queue_view(gpu_uuid, patience.waited(), {}, o.turn_times, 0, 0);
      view.order_lock_busy = true;
      if (!o.on_wait && !line) {
        line.emplace();
        line->set_words(o.words);
      }
      o.on_wait ? o.on_wait(view) : line->show(view);
    }
    if (patience.out_of_time()) {
      throw QueueTimeoutError(msg("no place in the queue of {gpu} within {timeout} (--queue-timeout): its order.lock "
                                  "is held by another process",
                                  arg("gpu", printable_value(gpu_uuid.substr(0, 12))),
                                  arg("timeout", format_wait(o.timeout_s.value_or(0)))));
    }
    patience.pause(kOrderLockPoll_s);
  }
}

// The tickets before ours in `in_line_order`; empty when the turn is ours to take.
std::vector<TicketInfo> ahead_of_us(const std::vector<TicketInfo>& in_line_order) {
  std::vector<TicketInfo> ahead;
  for (const auto& t : in_line_order) {
    if (t.ours) break;
    ahead.push_back(t);
  }
  return ahead;
}

FlockHolders holders_now(const QueueOptions& o) { return o.flock_holders ? o.flock_holders() : read_flock_holders(); }

ProcessState state_of(const QueueOptions& o, long pid) {
  if (pid <= 0) return ProcessState::unknown;
  return o.process_state ? o.process_state(pid) : process_state(pid);
}

// Which tickets ahead of ours still count, as one waiter sees them over time (gpu_queue.hpp:
// "Turns that do not move"). A ticket is passed over once it has looked stuck for its grace,
// measured by this waiter's clock from the first poll that saw it so.
class PassOver {
 public:
  PassOver(const QueueOptions& o, std::string gpu_uuid) : o_(o), gpu_uuid_(std::move(gpu_uuid)) {}

  // The tickets that count, in line order (ours included); `passed` gets those that do not.
  std::vector<TicketInfo> counted(std::vector<TicketInfo> live, double now, std::vector<PassedOver>& passed) {
    std::sort(live.begin(), live.end(), comes_before);
    std::map<std::uint64_t, Suspicion> still;
    std::vector<TicketInfo> kept;
    for (auto& t : live) {
      const std::optional<Suspicion> looks = t.ours ? std::nullopt : suspicion(t, kept.empty(), now);
      if (!looks) {
        kept.push_back(std::move(t));
        continue;
      }
      const bool same_reason = std::string_view(looks->kind) == suspects_[t.number].kind;
      const Suspicion& s = still[t.number] = same_reason ? suspects_[t.number] : *looks;
      if (now - s.since < s.grace) {
        kept.push_back(std::move(t));
      } else {
        passed.push_back({std::move(t), msg(s.kind, arg("duration", format_wait(now - s.since)))});
      }
    }
    suspects_ = std::move(still);
    return kept;
  }

 private:
  struct Suspicion {
    const char* kind = "";  // the reason as a template, "... for {duration}": one of the literals below
    double since = 0, grace = 0;
  };

  // Why `t` looks stuck now, if it does. `first_in_line`: nothing that counts is ahead of it.
  std::optional<Suspicion> suspicion(const TicketInfo& t, bool first_in_line, double now) const {
    if (state_of(o_, t.locker_pid) == ProcessState::stopped) {
      return Suspicion{"its process is stopped (Ctrl-Z or kill -STOP) for {duration}", now, o_.stopped_grace_s};
    }
    if (t.holding && t.locker_pid > 0 && o_.has_context && o_.has_context(gpu_uuid_, t.locker_pid) == false) {
      return Suspicion{"it holds the turn without a CUDA context on this GPU for {duration}", now,
                       o_.idle_holder_grace_s};
    }
    if (!t.holding && first_in_line) {
      return Suspicion{"its turn came and it did not take it for {duration}", now, o_.untaken_turn_grace_s};
    }
    return std::nullopt;
  }

  const QueueOptions& o_;
  std::string gpu_uuid_;
  std::map<std::uint64_t, Suspicion> suspects_;
};

}  // namespace

QueueClock& system_queue_clock() {
  static SystemQueueClock clock;
  return clock;
}

QueueTicket QueueTicket::enter(const std::string& gpu_uuid, const QueueOptions& options) {
  Patience patience(options);
  QueueTicket ticket;
  ticket.gpu_uuid_ = gpu_uuid;
  ticket.lesson_ = options.lesson;
  {
    const Fd root = open_queue_root(options.folder);
    ticket.instructors_ = read_instructors(root.get());
  }
  ticket.folder_ = open_gpu_folder(options.folder, gpu_uuid);
  const OpenedFile order = open_or_create(ticket.folder_.get(), "order.lock", printable_value(gpu_uuid) + "/order.lock");
  wait_for_order_lock(order.fd.get(), patience, gpu_uuid, options);
  const std::uint64_t highest = highest_ticket_clearing_dead(ticket.folder_.get());
  if (highest > std::numeric_limits<std::uint64_t>::max() - 64) {
    throw QueueUnavailableError(
        msg("the GPU queue of {gpu} holds a ticket numbered too high", arg("gpu", printable_value(gpu_uuid))));
  }
  // Someone else may have placed a ticket name without the order lock: take the next free one.
  for (std::uint64_t number = highest + 1; number <= highest + 64 && !ticket.file_.fd; ++number) {
    if (auto file = create_locked(ticket.folder_.get(), ticket_name(number), ticket_text(ticket.lesson_, std::nullopt))) {
      ticket.file_ = std::move(*file);
      ticket.number_ = number;
      ticket.name_ = ticket_name(number);
    }
  }
  unlock(order.fd.get());
  if (!ticket.file_.fd) {
    throw QueueUnavailableError(
        msg("no free ticket number in the GPU queue of {gpu}", arg("gpu", printable_value(gpu_uuid))));
  }
  return ticket;
}

std::vector<TicketInfo> QueueTicket::live() const {
  struct stat st {};
  const bool still_ours = ::fstatat(folder_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                          st.st_ino == file_.facts.inode && st.st_dev == file_.facts.device;
  if (!still_ours) {
    throw QueueUnavailableError(msg("this run's ticket {ticket} in the GPU queue of {gpu} was removed or replaced by "
                                    "someone else: its place is lost; run again",
                                    arg("ticket", name_), arg("gpu", printable_value(gpu_uuid_))));
  }
  return live_tickets(folder_.get(), read_flock_holders(), instructors_, &file_.facts);
}

std::vector<TicketInfo> QueueTicket::live(const QueueOptions& o) const {
  (void)live();  // throws when our ticket is gone
  return live_tickets(folder_.get(), holders_now(o), instructors_, &file_.facts);
}

std::vector<TicketInfo> QueueTicket::ahead() const {
  std::vector<TicketInfo> tickets = live();
  std::sort(tickets.begin(), tickets.end(), comes_before);
  return ahead_of_us(tickets);
}

bool QueueTicket::take(const std::function<bool(const std::vector<TicketInfo>&)>& still_ours_to_take,
                       const QueueOptions& options) {
  const OpenedFile order = open_or_create(folder_.get(), "order.lock", printable_value(gpu_uuid_) + "/order.lock");
  if (!try_lock(order.fd.get())) return false;  // someone is entering: look again at the next poll
  bool taken = false;
  if (still_ours_to_take(live(options))) {
    const std::string held = ticket_name(number_, true);
    // The name says "holding" to everyone; the lock stays with the file.
    taken = ::renameat2(folder_.get(), name_.c_str(), folder_.get(), held.c_str(), RENAME_NOREPLACE) == 0;
    if (!taken && errno == EINVAL) {  // a file system without RENAME_NOREPLACE
      taken = ::linkat(folder_.get(), name_.c_str(), folder_.get(), held.c_str(), 0) == 0 &&
              ::unlinkat(folder_.get(), name_.c_str(), 0) == 0;
    }
    if (taken) std::tie(name_, holding_) = std::make_pair(held, true);
  }
  unlock(order.fd.get());
  return taken;
}

void QueueTicket::mark_holding(double wall_s) {
  try {
    rewrite(file_.fd.get(), ticket_text(lesson_, wall_s));
  } catch (const QueueUnavailableError&) {
    // Only others' waiting lines read it: they fall back to when they saw us take the turn.
  }
}

// A holder the kernel still reports stopped (passed over for it) ran nothing on the GPU while it
// stood beside this turn: only a running one shares it. One continued meanwhile notices, drops
// what it measured and queues again, so it is running, and counted, when this turn ends.
bool QueueTicket::another_holder() const {
  try {
    const auto tickets = live();
    return std::any_of(tickets.begin(), tickets.end(), [](const TicketInfo& t) {
      return t.holding && !t.ours && process_state(t.locker_pid) != ProcessState::stopped;
    });
  } catch (const QueueUnavailableError&) {
    return false;
  }
}

void QueueTicket::leave() noexcept {
  if (!file_.fd) return;
  remove_if_ours(folder_.get(), name_, file_.facts);
  file_.fd = Fd();  // closing drops the lock
}

LearnedTurns QueueTicket::learned() const { return learned_turns(folder_.get()); }

void QueueTicket::remember(double held_s, double given_back_at) const noexcept {
  try {
    (void)remember_turn(folder_.get(), {lesson_, held_s, given_back_at});
  } catch (const std::exception&) {
    // Learning is best effort: the estimate only knows less.
  }
}

TurnRecord GpuTurn::record() const {
  TurnRecord r = record_;
  if (held()) r.held_s = clock_->steady_s() - taken_at_;
  return r;
}

void GpuTurn::release() noexcept { give_back(false); }

void GpuTurn::release_finished() noexcept { give_back(true); }

void GpuTurn::give_back(bool learn) noexcept {
  if (!ticket_) return;
  record_.held_s = clock_->steady_s() - taken_at_;
  record_.shared = ticket_->another_holder();
  ticket_->leave();
  if (learn && !record_.shared) ticket_->remember(record_.held_s, clock_->wall_s());
  ticket_.reset();
}

GpuTurn wait_for_turn(std::unique_ptr<QueueTicket> ticket, const QueueOptions& o) {
  Patience patience(o);
  patience.check();
  const std::string gpu_uuid = ticket->gpu_uuid();
  std::optional<WaitingLine> line;
  if (!o.on_wait) {
    line.emplace();
    line->set_words(o.words);
  }
  PassOver pass_over(o, gpu_uuid);
  std::vector<PassedOver> passed;
  auto look = [&](const std::vector<TicketInfo>& live) {
    passed.clear();
    return ahead_of_us(pass_over.counted(live, patience.clock().steady_s(), passed));
  };
  // The turns this GPU has learned, read once: the estimate need not follow turns ending meanwhile.
  const TurnTimes times = with_learned(o.turn_times, ticket->learned());
  std::uint64_t holder = 0;
  double holder_seen_since = 0;
  int position = -1;
  for (;;) {
    const std::vector<TicketInfo> ahead = look(ticket->live(o));
    if (position < 0) position = static_cast<int>(ahead.size());
    const double now_wall = patience.clock().wall_s();
    const std::uint64_t front = ahead.empty() ? 0 : ahead.front().number;
    if (front != holder) std::tie(holder, holder_seen_since) = std::make_pair(front, now_wall);
    QueueView view = make_queue_view(gpu_uuid, patience.waited(), ahead, times, now_wall, holder_seen_since);
    view.passed_over = passed;
    // Whoever was passed over is named even when that makes the turn ours at once.
    if (!ahead.empty() || !passed.empty()) o.on_wait ? o.on_wait(view) : line->show(view);
    if (ahead.empty() && ticket->take([&](const std::vector<TicketInfo>& now) { return look(now).empty(); }, o)) break;
    patience.check();
    if (patience.out_of_time()) throw QueueTimeoutError(queue_timeout_line(view, o.timeout_s.value_or(0)));
    patience.pause(o.poll_s);
  }
  GpuTurn turn;
  turn.clock_ = &patience.clock();
  turn.taken_at_ = turn.clock_->steady_s();
  turn.record_.wait_s = patience.waited();
  turn.record_.position = position;
  turn.record_.taken_at = turn.clock_->wall_s();
  ticket->mark_holding(turn.clock_->wall_s());
  turn.ticket_ = std::move(ticket);
  if (line) line->done(gpu_uuid, turn.record_.wait_s);
  return turn;
}

GpuTurn take_gpu_turn(const std::string& gpu_uuid, const QueueOptions& o) {
  Patience patience(o);
  patience.check();
  return wait_for_turn(std::make_unique<QueueTicket>(QueueTicket::enter(gpu_uuid, o)), o);
}

TurnRecord GpuTurns::record() const {
  TurnRecord total;
  for (const auto& turn : turns_) {
    const TurnRecord r = turn.record();
    total.wait_s += r.wait_s;
    total.held_s = std::max(total.held_s, r.held_s);
    total.position = std::max(total.position, r.position);
    total.shared = total.shared || r.shared;
    total.taken_at = std::max(total.taken_at, r.taken_at);  // the last GPU's turn: when measuring could start
  }
  return total;
}

void GpuTurns::release() noexcept {
  for (auto it = turns_.rbegin(); it != turns_.rend(); ++it) it->release();
}

void GpuTurns::release_finished() noexcept {
  for (auto it = turns_.rbegin(); it != turns_.rend(); ++it) it->release_finished();
}

GpuTurns take_gpu_turns(std::vector<std::string> gpu_uuids, const QueueOptions& options) {
  std::sort(gpu_uuids.begin(), gpu_uuids.end());
  gpu_uuids.erase(std::unique(gpu_uuids.begin(), gpu_uuids.end()), gpu_uuids.end());
  QueueClock& clock = options.clock != nullptr ? *options.clock : system_queue_clock();
  const double start = clock.steady_s();
  GpuTurns turns;
  for (const auto& uuid : gpu_uuids) {
    QueueOptions each = options;
    if (options.timeout_s) each.timeout_s = std::max(0.0, *options.timeout_s - (clock.steady_s() - start));
    turns.turns_.push_back(take_gpu_turn(uuid, each));
  }
  return turns;
}

int queue_length(const std::string& gpu_uuid, const std::string& folder) {
  try {
    const Fd gpu_folder = open_gpu_folder(folder, gpu_uuid);
    return static_cast<int>(live_tickets(gpu_folder.get(), {}, {}, nullptr).size());
  } catch (const QueueUnavailableError&) {
    return 0;
  }
}

std::size_t shortest_queue(const std::vector<std::string>& gpu_uuids, const std::string& folder) {
  std::size_t best = 0;
  int best_length = std::numeric_limits<int>::max();
  for (std::size_t i = 0; i < gpu_uuids.size(); ++i) {
    const int length = queue_length(gpu_uuids[i], folder);
    if (length < best_length) std::tie(best, best_length) = std::make_pair(i, length);
  }
  return best;
}

AutoTurn take_turn_on_shortest_queue(const std::vector<std::string>& gpu_uuids, const QueueOptions& options) {
  if (gpu_uuids.empty()) throw QueueUnavailableError("--device auto: no GPU to choose from");
  Patience patience(options);
  AutoTurn chosen;
  std::unique_ptr<QueueTicket> ticket;
  {
    const Fd root = open_queue_root(options.folder);
    const OpenedFile choosing = open_or_create(root.get(), "auto.lock", "auto.lock");
    wait_for_order_lock(choosing.fd.get(), patience, gpu_uuids.front(), options);
    chosen.index = shortest_queue(gpu_uuids, options.folder);
    ticket = std::make_unique<QueueTicket>(QueueTicket::enter(gpu_uuids[chosen.index], options));
    unlock(choosing.fd.get());
  }
  chosen.turn = wait_for_turn(std::move(ticket), options);
  return chosen;
}

std::string gpu_uuid_text(const unsigned char (&b)[16]) {
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

}  // namespace cudalab
