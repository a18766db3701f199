// The turns a GPU's queue folder has learned (turn_log.hpp).
#include "common/queue/turn_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "common/core/stats.hpp"
#include "common/queue/queue_files.hpp"

namespace cudalab {

namespace {

using namespace queue_files;

constexpr std::string_view kFilePrefix = "turns-";
constexpr std::size_t kFileLimit = 16 * 1024;  // kTurnsKept turns of every lesson fit many times over
constexpr std::size_t kFilesRead = 512;
constexpr std::size_t kLessonChars = 40;
constexpr double kLongestTurn_s = 24 * 3600.0;

std::string file_name(uid_t uid) { return fmt::format("{}{}", kFilePrefix, uid); }

// "turns-<uid>" -> uid; nullopt for any other name.
std::optional<uid_t> uid_of_file(std::string_view name) {
  if (name.substr(0, kFilePrefix.size()) != kFilePrefix || name.size() == kFilePrefix.size()) return std::nullopt;
  const std::string_view digits = name.substr(kFilePrefix.size());
  if (digits.size() > 10 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  unsigned long value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value > 0xffffffffUL) return std::nullopt;
  return static_cast<uid_t>(value);
}

bool lesson_name(std::string_view word) {
  if (word.empty() || word.size() > kLessonChars) return false;
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// A decimal number written by turns_text: digits, one '.', nothing else (no sign, exponent or
// "nan"), so strtod reads exactly what the check saw.
std::optional<double> plain_number(std::string_view word) {
  if (word.empty() || word.size() > 24) return std::nullopt;
  std::size_t dots = 0;
  for (const char c : word) {
    if (c == '.') ++dots;
    else if (c < '0' || c > '9') return std::nullopt;
  }
  if (dots > 1 || word.front() == '.' || word.back() == '.') return std::nullopt;
  return std::strtod(std::string(word).c_str(), nullptr);
}

// The turns of the file `name` in `folder`, when the kernel says `uid` owns it.
std::vector<Turn> read_file_of(int folder, const std::string& name, uid_t uid) {
  const auto file = open_regular(folder, name);
  if (!file || file->facts.owner != uid) return {};
  return parse_turns(read_head(file->fd.get(), kFileLimit));
}

}  // namespace

std::vector<Turn> parse_turns(std::string_view text) {
  std::vector<Turn> turns;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    std::string_view words[3];
    std::size_t count = 0;
    while (!line.empty() && count < 4) {
      const std::size_t space = std::min(line.find(' '), line.size());
      if (count < 3) words[count] = line.substr(0, space);
      ++count;
      line.remove_prefix(std::min(space + 1, line.size()));
    }
    if (count != 3 || !lesson_name(words[0])) continue;
    const auto held = plain_number(words[1]);
    const auto at = plain_number(words[2]);
    if (!held || !at || !(*held > 0) || *held > kLongestTurn_s || !(*at > 0)) continue;
    turns.push_back({std::string(words[0]), *held, *at});
  }
  return turns;
}

std::string turns_text(std::vector<Turn> turns) {
  std::stable_sort(turns.begin(), turns.end(),
                   [](const Turn& a, const Turn& b) { return a.given_back_at > b.given_back_at; });
  std::map<std::string, std::size_t> kept;
  std::vector<Turn> newest;
  for (auto& t : turns) {
    if (kept[t.lesson]++ < kTurnsKept) newest.push_back(std::move(t));
  }
  std::string text;
  for (auto it = newest.rbegin(); it != newest.rend(); ++it) {
    text += fmt::format("{} {:.3f} {:.3f}\n", it->lesson, it->held_s, it->given_back_at);
  }
  return text;
}

bool remember_turn(int gpu_folder, const Turn& turn) {
  if (!lesson_name(turn.lesson) || !(turn.held_s > 0) || turn.held_s > kLongestTurn_s) return false;
  const uid_t uid = ::geteuid();
  const std::string name = file_name(uid);
  std::vector<Turn> turns = read_file_of(gpu_folder, name, uid);
  turns.push_back(turn);
  return replace_file(gpu_folder, name, turns_text(std::move(turns)));
}

LearnedTurns learned_turns(int gpu_folder) {
  struct Counted {
    Turn turn;
    uid_t uid;
  };
  std::vector<Counted> all;
  std::size_t files = 0;
  for (const auto& name : list_names(gpu_folder, kMaxFolderEntries)) {
    const auto uid = uid_of_file(name);
    if (!uid || files++ >= kFilesRead) continue;
    for (auto& t : read_file_of(gpu_folder, name, *uid)) all.push_back({std::move(t), *uid});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Counted& a, const Counted& b) { return a.turn.given_back_at > b.turn.given_back_at; });
  std::map<std::string, std::vector<double>> held;
  std::map<std::pair<std::string, uid_t>, std::size_t> per_user;
  for (const auto& c : all) {
    auto& seconds = held[c.turn.lesson];
    if (seconds.size() >= kTurnsCounted || per_user[{c.turn.lesson, c.uid}]++ >= kTurnsPerUser) continue;
    seconds.push_back(c.turn.held_s);
  }
  LearnedTurns learned;
  for (const auto& [lesson, seconds] : held) learned[lesson] = {median_of(seconds), seconds.size()};
  return learned;
}

std::map<std::string, LearnedTurns> learned_turns_by_gpu(const std::string& root) {
  std::map<std::string, LearnedTurns> by_gpu;
  const Fd folder(::open((root.empty() ? queue_root_path() : root).c_str(),
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!folder) return by_gpu;
  std::size_t folders = 0;
  for (const auto& name : list_names(folder.get(), kMaxFolderEntries)) {
    if (name.rfind("GPU-", 0) != 0 || !valid_folder_name(name) || folders >= kFilesRead) continue;
    const Fd gpu = open_existing_gpu_folder(root, name);
    if (!gpu) continue;
    ++folders;
    LearnedTurns learned = learned_turns(gpu.get());
    if (!learned.empty()) by_gpu[name] = std::move(learned);
  }
  return by_gpu;
}

TurnTimes with_learned(TurnTimes stated, const LearnedTurns& learned) {
  for (const auto& [lesson, turn] : learned) {
    if (turn.enough()) stated.by_lesson[lesson] = turn.median_s;
  }
  return stated;
}

}  // namespace cudalab
