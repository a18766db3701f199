#include "common/queue/queue_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

constexpr double kStuckFactor = 3.0;
constexpr double kStuckMinimum_s = 10.0;
constexpr double kRedrawEvery_s = 0.2;
// A holder's own "holding since" is believed (for display) only within this much of now.
constexpr double kPlausibleHold_s = 7 * 24 * 3600.0;

std::string short_gpu(const std::string& uuid) { return printable_value(uuid.substr(0, 12), 12); }

std::string cut_to_columns(const std::string& text, std::size_t columns) {
  if (display_width(text) <= columns) return text;
  std::string out;
  std::size_t used = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t next = i + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    const std::size_t width = display_width(std::string_view(text).substr(i, next - i));
    if (used + width + 1 > columns) break;
    out.append(text, i, next - i);
    used += width;
    i = next;
  }
  return out + "…";
}

std::size_t terminal_columns(int fd) {
  struct winsize size {};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  const char* columns = std::getenv("COLUMNS");
  const long from_env = columns != nullptr ? std::strtol(columns, nullptr, 10) : 0;
  return from_env > 0 && from_env < 10000 ? static_cast<std::size_t>(from_env) : 80;
}

}  // namespace

std::optional<double> TurnTimes::typical(const std::string& lesson) const {
  std::vector<double> known;
  for (const auto& [name, seconds] : by_lesson) {
    if (!std::isfinite(seconds) || seconds < 0) continue;
    if (name == lesson) return seconds;
    known.push_back(seconds);
  }
  if (known.empty()) return std::nullopt;
  std::sort(known.begin(), known.end());
  const std::size_t mid = known.size() / 2;
  return known.size() % 2 == 1 ? known[mid] : (known[mid - 1] + known[mid]) / 2;
}

bool turn_looks_stuck(double held_s, std::optional<double> usual_s) {
  return usual_s.has_value() && held_s >= kStuckFactor * *usual_s && held_s >= kStuckMinimum_s;
}

QueueView make_queue_view(const std::string& gpu_uuid, double waited_s, const std::vector<TicketInfo>& ahead,
                          const TurnTimes& times, double now_wall, double holder_seen_since) {
  QueueView view;
  view.gpu = short_gpu(gpu_uuid);
  view.waited_s = waited_s;
  view.ahead = static_cast<int>(ahead.size());
  if (ahead.empty()) return view;
  const TicketInfo& holder = ahead.front();
  view.holder = holder;
  const auto claimed = holder.holding_since;
  const bool plausible = claimed && *claimed <= now_wall + 1 && *claimed >= now_wall - kPlausibleHold_s;
  view.held_s = std::max(0.0, now_wall - (plausible ? *claimed : holder_seen_since));
  view.holder_usual_s = times.typical(holder.lesson);
  view.holder_stuck = turn_looks_stuck(view.held_s, view.holder_usual_s);
  if (!view.holder_usual_s) return view;
  double estimate = std::max(0.0, *view.holder_usual_s - view.held_s);
  for (std::size_t i = 1; i < ahead.size(); ++i) estimate += times.typical(ahead[i].lesson).value_or(0);
  view.estimate_s = estimate;
  return view;
}

Message format_wait(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  if (seconds < 9.95) {
    const double tenths = std::round(seconds * 10) / 10;
    const std::string shown = tenths == std::floor(tenths) ? fmt::format("{:.0f}", tenths) : fmt::format("{:.1f}", tenths);
    return msg("{seconds} s", arg("seconds", shown));
  }
  if (seconds < 119.5) return msg("{seconds} s", arg("seconds", fmt::format("{:.0f}", seconds)));
  const long total = std::lround(std::min(seconds, 1e9));
  if (total < 3600) {
    if (total % 60 == 0) return msg("{minutes} min", arg("minutes", total / 60));
    return msg("{minutes} min {seconds} s", arg("minutes", total / 60), arg("seconds", total % 60));
  }
  return msg("{hours} h {minutes} min", arg("hours", total / 3600), arg("minutes", total % 3600 / 60));
}

Message waiting_line(const QueueView& v) {
  // One whole template for each part, joined with " · ": each part reads alone in any language.
  std::vector<Message> parts{
      msg("cudalab: waiting {waited} for {gpu}", arg("waited", format_wait(v.waited_s)), arg("gpu", v.gpu))};
  if (v.order_lock_busy) {
    parts.push_back("its order.lock is held by another process, which may be stuck");
    return join(parts, " · ");
  }
  parts.push_back(msg("{ahead} ahead of you", arg("ahead", v.ahead)));
  if (v.holder) {
    const TicketInfo& h = *v.holder;
    if (v.holder_stuck) {
      parts.push_back(msg("{lesson} held {held}, its lesson usually takes {usual}: pid {pid} of {user} may be stuck",
                          arg("lesson", h.lesson), arg("held", format_wait(v.held_s)),
                          arg("usual", format_wait(v.holder_usual_s.value_or(0))), arg("pid", h.pid),
                          arg("user", h.user)));
    } else {
      parts.push_back(msg("now {lesson} of {user} (pid {pid}), {held} in", arg("lesson", h.lesson), arg("user", h.user),
                          arg("pid", h.pid), arg("held", format_wait(v.held_s))));
    }
  }
  if (v.estimate_s) {
    parts.push_back(v.holder_stuck ? msg("at least {wait} to wait", arg("wait", format_wait(*v.estimate_s)))
                                   : msg("about {wait} to wait", arg("wait", format_wait(*v.estimate_s))));
  }
  return join(parts, " · ");
}

Message passed_over_line(const std::string& gpu, const PassedOver& p) {
  return msg("cudalab: passed over ticket {ticket} of {user} (pid {pid}) on {gpu}: {why}",
             arg("ticket", p.ticket.number), arg("user", p.ticket.user), arg("pid", p.ticket.pid), arg("gpu", gpu),
             arg("why", p.why));
}

Message queue_timeout_line(const QueueView& v, double timeout_s) {
  // Whole clauses joined with "; ", as waiting_line joins its parts: the count ahead (one run or
  // several), then the holder when there is one (stuck or not).
  const MessageArg gpu = arg("gpu", v.gpu);
  const MessageArg timeout = arg("timeout", format_wait(timeout_s));
  const MessageArg ahead = arg("ahead", v.ahead);
  std::vector<Message> clauses{
      v.ahead == 1
          ? msg("no turn on {gpu} within {timeout} (--queue-timeout): {ahead} run still ahead", gpu, timeout, ahead)
          : msg("no turn on {gpu} within {timeout} (--queue-timeout): {ahead} runs still ahead", gpu, timeout, ahead)};
  if (v.holder) {
    Message held = v.holder_stuck
                       ? Message("the GPU is held by {lesson} of {user} (pid {pid}) for {held}, which may be stuck")
                       : Message("the GPU is held by {lesson} of {user} (pid {pid}) for {held}");
    held.with(arg("lesson", v.holder->lesson)).with(arg("user", v.holder->user)).with(arg("pid", v.holder->pid));
    clauses.push_back(held.with(arg("held", format_wait(v.held_s))));
  }
  return join(clauses, "; ");
}

WaitingLine::WaitingLine(std::FILE* out, bool terminal, std::size_t columns)
    : out_(out), terminal_(terminal), columns_(std::max<std::size_t>(columns, 20)) {}

WaitingLine::WaitingLine(std::FILE* out)
    : WaitingLine(out, ::isatty(::fileno(out)) == 1, ::isatty(::fileno(out)) == 1 ? terminal_columns(::fileno(out)) : 80) {}

WaitingLine::~WaitingLine() {
  if (terminal_ && drawn_) {
    std::fputs("\r\x1b[K", out_);
    std::fflush(out_);
  }
}

void WaitingLine::show(const QueueView& v) {
  for (const auto& passed : v.passed_over) {
    if (std::find(announced_.begin(), announced_.end(), passed.ticket.number) != announced_.end()) continue;
    announced_.push_back(passed.ticket.number);
    std::fprintf(out_, "%s%s\n", terminal_ && drawn_ ? "\r\x1b[K" : "", in_words(passed_over_line(v.gpu, passed)).c_str());
    last_key_.clear();  // the waiting line is drawn again below it
  }
  if (v.ahead == 0 && !v.order_lock_busy) return;  // only a passing over to say: the turn is ours
  const std::string key = v.holder ? fmt::format("{}|{}|{}|{}|{}|{}", v.ahead, v.holder->number, v.holder->pid,
                                                 v.holder->user, v.holder->lesson, v.holder_stuck)
                                   : fmt::format("{}|{}", v.ahead, v.order_lock_busy);
  if (terminal_) {
    if (key == last_key_ && last_drawn_at_ >= 0 && v.waited_s - last_drawn_at_ < kRedrawEvery_s) return;
    std::fprintf(out_, "\r\x1b[K%s", cut_to_columns(in_words(waiting_line(v)), columns_ - 1).c_str());
  } else {
    if (key == last_key_) return;
    std::fprintf(out_, "%s\n", in_words(waiting_line(v)).c_str());
  }
  std::fflush(out_);
  last_key_ = key;
  last_drawn_at_ = v.waited_s;
  drawn_ = true;
}

void WaitingLine::done(const std::string& gpu_uuid, double waited_s) {
  if (!drawn_) return;
  if (terminal_) {
    std::fputs("\r\x1b[K", out_);
  } else {
    const Message line = msg("cudalab: your turn on {gpu} after {waited}", arg("gpu", short_gpu(gpu_uuid)),
                             arg("waited", format_wait(waited_s)));
    std::fprintf(out_, "%s\n", in_words(line).c_str());
  }
  std::fflush(out_);
  drawn_ = false;
  last_key_.clear();
}

}  // namespace cudalab
