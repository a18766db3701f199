#include "common/queue/holders.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "common/queue/queue_files.hpp"

namespace cudalab {

namespace {

// /proc/locks lists every lock on the host: a busy server has thousands, never megabytes.
constexpr std::size_t kProcLocksLimit = 4u << 20;
constexpr std::size_t kStatLimit = 4096;
constexpr std::size_t kInstructorsLimit = 64u << 10;

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const std::size_t end = std::min(line.find_first_of(" \t"), line.size());
    words.push_back(line.substr(0, end));
    line.remove_prefix(end);
  }
  return words;
}

template <typename T>
std::optional<T> number_in(std::string_view text, int base = 10) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// "08:01:5678" (major and minor in hex, the inode in decimal) -> (device, inode).
std::optional<std::pair<dev_t, ino_t>> file_id(std::string_view text) {
  const std::size_t first = text.find(':');
  const std::size_t second = first == std::string_view::npos ? first : text.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto major_no = number_in<unsigned>(text.substr(0, first), 16);
  const auto minor_no = number_in<unsigned>(text.substr(first + 1, second - first - 1), 16);
  const auto inode = number_in<unsigned long long>(text.substr(second + 1));
  if (!major_no || !minor_no || !inode) return std::nullopt;
  return std::make_pair(static_cast<dev_t>(makedev(*major_no, *minor_no)), static_cast<ino_t>(*inode));
}

// At most `limit` bytes of a file under /proc (read() until end: their sizes read as 0).
std::string read_proc(const std::string& path, std::size_t limit) {
  const queue_files::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  std::string text;
  if (!fd) return text;
  char buffer[8192];
  while (text.size() < limit) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

std::optional<uid_t> uid_of_user(std::string_view name) {
  if (const auto uid = number_in<unsigned>(name)) return static_cast<uid_t>(*uid);
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::string buffer(16384, '\0');
  const std::string user(name);
  if (::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return found->pw_uid;
  }
  return std::nullopt;
}

}  // namespace

FlockHolders parse_proc_locks(std::string_view text) {
  FlockHolders holders;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    const auto words = words_of(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
    // "1:" "FLOCK" "ADVISORY" "WRITE" PID "MAJ:MIN:INODE" START END; a blocked waiter has "->".
    if (words.size() < 6 || words[1] != "FLOCK") continue;
    const auto pid = number_in<long>(words[4]);
    const auto id = file_id(words[5]);
    if (pid && *pid > 0 && id) holders.emplace(*id, *pid);
  }
  return holders;
}

FlockHolders read_flock_holders() { return parse_proc_locks(read_proc("/proc/locks", kProcLocksLimit)); }

ProcessState parse_process_state(std::string_view stat_text) {
  // The name in parentheses may hold anything, ')' included: the state follows the last ')'.
  const std::size_t close = stat_text.rfind(')');
  if (close == std::string_view::npos || close + 2 >= stat_text.size()) return ProcessState::unknown;
  switch (stat_text[close + 2]) {
    case 'T':
    case 't':
      return ProcessState::stopped;
    case 'Z':
    case 'X':
      return ProcessState::gone;
    default:
      return ProcessState::running;
  }
}

ProcessState process_state(long pid) {
  if (pid <= 0) return ProcessState::unknown;
  const std::string text = read_proc(fmt::format("/proc/{}/stat", pid), kStatLimit);
  return text.empty() ? ProcessState::gone : parse_process_state(text);
}

bool in_initial_pid_namespace() {
  // The kernel gives the initial pid namespace a fixed inode number (PROC_PID_INIT_INO).
  constexpr unsigned long kInitialPidNamespaceInode = 0xEFFFFFFCUL;
  struct stat st {};
  return ::stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == kInitialPidNamespaceInode;
}

std::optional<unsigned long long> parse_cpu_ticks(std::string_view stat_text) {
  const std::size_t close = stat_text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  // After "pid (name)": state is field 3, utime field 14 and stime field 15.
  const auto fields = words_of(stat_text.substr(close + 1));
  if (fields.size() < 13) return std::nullopt;
  const auto user = number_in<unsigned long long>(fields[11]);
  const auto system = number_in<unsigned long long>(fields[12]);
  if (!user || !system) return std::nullopt;
  return *user + *system;
}

std::optional<double> process_cpu_seconds(long pid) {
  if (pid <= 0) return std::nullopt;
  const auto ticks = parse_cpu_ticks(read_proc(fmt::format("/proc/{}/stat", pid), kStatLimit));
  const long per_second = ::sysconf(_SC_CLK_TCK);
  if (!ticks || per_second <= 0) return std::nullopt;
  return static_cast<double>(*ticks) / static_cast<double>(per_second);
}

std::set<uid_t> read_instructors(int root_fd, std::string* why_not) {
  auto refuse = [&](std::string why) {
    if (why_not != nullptr) *why_not = std::move(why);
    return std::set<uid_t>{};
  };
  struct stat folder {};
  if (::fstat(root_fd, &folder) != 0) return refuse("the queue folder cannot be read");
  const auto file = queue_files::open_regular(root_fd, "instructors");
  if (!file) return refuse("no instructors file");
  struct stat st {};
  if (::fstat(file->fd.get(), &st) != 0) return refuse("the instructors file cannot be read");
  if (st.st_uid != folder.st_uid) return refuse("the instructors file is not owned by the queue folder's owner");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return refuse("the instructors file is writable by others");
  std::set<uid_t> uids;
  std::string_view text;
  const std::string content = queue_files::read_head(file->fd.get(), kInstructorsLimit);
  text = content;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    line = line.substr(0, line.find('#'));
    for (const auto word : words_of(line)) {
      if (const auto uid = uid_of_user(word)) uids.insert(*uid);
    }
  }
  return uids;
}

}  // namespace cudalab
