#include "common/core/progress.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include <fmt/format.h>

namespace cudalab::progress {

namespace {

using Clock = std::chrono::steady_clock;

struct State {
  std::mutex mutex;
  bool enabled = false;
  bool drawn = false;
  std::string what, section;
  Clock::time_point start, last_draw;
  std::atomic<long> runs{0};
  int frame = 0;
};

State& state() {
  static State s;
  return s;
}

constexpr auto kQuiet = std::chrono::milliseconds(500);
constexpr auto kRedraw = std::chrono::milliseconds(100);

}  // namespace

std::string line_for(const std::string& what, const std::string& section, double seconds, long runs, int frame) {
  static const char* kSpinner[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  return fmt::format("{} {}{}{} · {:.1f} s · {} runs", kSpinner[frame % 10], what, section.empty() ? "" : " · ", section,
                     seconds, runs);
}

void enable(bool on) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().enabled = on;
}

void begin(const std::string& what) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.what = what;
  s.section.clear();
  s.start = s.last_draw = Clock::now();
  s.runs = 0;
}

void section(const std::string& name) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().section = name;
}

void tick() {
  State& s = state();
  ++s.runs;
  if (!s.enabled) return;
  const auto now = Clock::now();
  std::unique_lock<std::mutex> lock(s.mutex, std::try_to_lock);
  if (!lock.owns_lock() || now - s.start < kQuiet || now - s.last_draw < kRedraw) return;
  s.last_draw = now;
  const double seconds = std::chrono::duration<double>(now - s.start).count();
  std::fprintf(stderr, "\r\x1b[K%s", line_for(s.what, s.section, seconds, s.runs, s.frame++).c_str());
  std::fflush(stderr);
  s.drawn = true;
}

void end() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.drawn) {
    std::fputs("\r\x1b[K", stderr);
    std::fflush(stderr);
  }
  s.drawn = false;
}

}  // namespace cudalab::progress
