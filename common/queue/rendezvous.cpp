#include "common/queue/rendezvous.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "common/core/interrupt.hpp"
#include "common/queue/queue_files.hpp"
#include "common/core/units.hpp"

namespace cudalab {

namespace {

using queue_files::Fd;

// The most one file may hold: a rank's measurements are a few hundred kilobytes at most.
constexpr std::size_t kMaxFileBytes = 8u << 20;
constexpr std::size_t kMaxKeyLength = 40;
constexpr const char* kMagic = "cudalab-rendezvous";
constexpr double kBeatInterval_s = 1.0;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string random_hex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  std::size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw RendezvousError("rendezvous: the system gave no random bytes for a nonce");
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (const char c : raw) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return hex;
}

void check_key(const std::string& key) {
  const bool ok = !key.empty() && key.size() <= kMaxKeyLength &&
                  std::all_of(key.begin(), key.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
  if (!ok) throw std::logic_error("rendezvous key must be 1 to 40 of [a-z0-9-]: " + key);
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return text;
}

// The folder, created private to this user when missing; refused when it is a symlink, not a
// folder, or someone else's.
Fd open_private_folder(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    throw RendezvousError(msg("rendezvous: cannot create the folder {folder}: {reason}", arg("folder", path),
                              arg("reason", errno_words(errno))));
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
    throw RendezvousError(msg("rendezvous: {folder} is not a folder of this user's (a symlink, a file, or another "
                              "user's): remove it or set CUDALAB_RENDEZVOUS elsewhere",
                              arg("folder", path)));
  }
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    throw RendezvousError(msg("rendezvous: cannot open the folder {folder}: {reason}", arg("folder", path),
                              arg("reason", errno_words(errno))));
  }
  return fd;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size()) lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (const int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

}  // namespace

struct Rendezvous::State {
  RendezvousOptions options;
  Fd folder;
  std::string nonce;  // this rank's, fresh for each join
  std::string run;    // the run's name, chosen by rank 0
  std::vector<std::string> labels;
  std::vector<std::string> names_used;  // every file name of this run, for rank 0's clean-up
  double last_beat_s = -1e9;
  unsigned long beats = 0;
  unsigned long temp_counter = 0;

  // The whole file, "" when it is absent, a symlink or not a regular file.
  std::optional<std::string> read(const std::string& name) const {
    auto file = queue_files::open_regular(folder.get(), name);
    if (!file) return std::nullopt;
    std::string text = queue_files::read_head(file->fd.get(), kMaxFileBytes + 1);
    if (text.size() > kMaxFileBytes) {
      throw RendezvousError(msg("rendezvous: {folder}/{file} is larger than {limit} bytes",
                                arg("folder", options.folder), arg("file", name), arg("limit", kMaxFileBytes)));
    }
    return text;
  }

  void write(const std::string& name, const std::string& body) {
    const std::string temp = fmt::format(".tmp-{}-{}-{}", name, ::getpid(), temp_counter++);
    Fd fd(::openat(folder.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    std::size_t done = 0;
    while (fd && done < body.size()) {
      const ssize_t n = ::write(fd.get(), body.data() + done, body.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    const bool written = fd && done == body.size();
    fd = Fd();
    if (!written || ::renameat(folder.get(), temp.c_str(), folder.get(), name.c_str()) != 0) {
      const int err = errno;
      ::unlinkat(folder.get(), temp.c_str(), 0);
      throw RendezvousError(msg("rendezvous: cannot write {folder}/{file}: {reason}", arg("folder", options.folder),
                                arg("file", name), arg("reason", errno_words(err))));
    }
    remember(name);
  }

  void remember(const std::string& name) {
    if (std::find(names_used.begin(), names_used.end(), name) == names_used.end()) names_used.push_back(name);
  }

  // "<magic> <key>\n<run>\n" + payload.
  void write_for_run(const std::string& key, int rank, const std::string& payload) {
    write(fmt::format("{}.{}", key, rank), fmt::format("{} {}\n{}\n{}", kMagic, key, run, payload));
  }
  // The payload of this run's file `key.rank`; nullopt while it is absent or another run's.
  std::optional<std::string> read_for_run(const std::string& key, int rank) {
    const std::string name = fmt::format("{}.{}", key, rank);
    remember(name);
    const auto text = read(name);
    const std::string head = fmt::format("{} {}\n{}\n", kMagic, key, run);
    if (!text || text->compare(0, head.size(), head) != 0) return std::nullopt;
    return text->substr(head.size());
  }

  double deadline() const { return now_s() + options.timeout_s; }
  void pause() const {
    sleep_unless_interrupted(std::chrono::milliseconds(std::max(1, static_cast<int>(options.poll_s * 1000))));
  }
  [[noreturn]] void time_out(const Message& what) const {
    throw RendezvousError(msg("rank {rank} of {ranks}: {what} within {seconds} s (folder {folder}); are all {ranks} "
                              "ranks running, started with the same run id, and do they share that folder?",
                              arg("rank", options.rank), arg("ranks", options.world_size), arg("what", what),
                              arg("seconds", fmt::format("{:.0f}", options.timeout_s)),
                              arg("folder", options.folder)));
  }
};

Rendezvous::Rendezvous(std::unique_ptr<State> state) : s_(std::move(state)) {}
Rendezvous::Rendezvous(Rendezvous&&) noexcept = default;
Rendezvous& Rendezvous::operator=(Rendezvous&&) noexcept = default;

int Rendezvous::rank() const { return s_->options.rank; }
int Rendezvous::world_size() const { return s_->options.world_size; }
const std::string& Rendezvous::folder() const { return s_->options.folder; }
const std::vector<std::string>& Rendezvous::labels() const { return s_->labels; }

std::string rendezvous_folder(const RankEnvironment& env) {
  const char* shared = std::getenv("CUDALAB_RENDEZVOUS");
  const char* tmp = std::getenv("TMPDIR");
  const std::string base = shared && *shared ? shared : tmp && *tmp ? tmp : "/tmp";
  return fmt::format("{}/cudalab-rendezvous-{}-{}", base, ::geteuid(), env.run_key);
}

void remove_rendezvous_folder(const std::string& folder) {
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return;
  const Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) return;
  for (const auto& name : queue_files::list_names(dir.get(), queue_files::kMaxFolderEntries)) {
    ::unlinkat(dir.get(), name.c_str(), 0);  // files only: a folder inside stays, and so does this one
  }
  ::rmdir(folder.c_str());
}

double rendezvous_timeout_s() {
  const char* text = std::getenv("CUDALAB_RANK_TIMEOUT");
  if (text == nullptr || *text == '\0') return kDefaultRendezvousTimeoutS;
  const Message why = whole_number_problem(text, 1, 3600);
  if (!why.empty()) throw UsageError(msg("CUDALAB_RANK_TIMEOUT: {problem}", arg("problem", why)));
  return static_cast<double>(*parse_whole_number(text));
}

namespace {

struct Hello {
  std::string nonce;
  std::string label;
};

std::optional<Hello> parse_hello(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto lines = split_lines(*text);
  if (lines.size() < 3 || lines[0] != fmt::format("{} hello", kMagic) || lines[1].empty()) return std::nullopt;
  return Hello{lines[1], lines[2]};
}

std::string members_text(const std::string& run, const std::vector<Hello>& members) {
  std::string text = fmt::format("{} members\n{}\n", kMagic, run);
  for (const auto& m : members) text += fmt::format("{} {}\n", m.nonce, m.label);
  return text;
}

std::string ack_text(const std::string& run, const std::string& nonce) {
  return fmt::format("{} ack\n{}\n{}\n", kMagic, run, nonce);
}

}  // namespace

Rendezvous Rendezvous::join(RendezvousOptions options, const std::string& label) {
  if (options.world_size < 1 || options.rank < 0 || options.rank >= options.world_size) {
    throw std::logic_error("Rendezvous::join: rank outside the world");
  }
  auto state = std::make_unique<State>();
  state->folder = open_private_folder(options.folder);
  state->options = std::move(options);
  state->nonce = random_hex(16);
  Rendezvous rdv(std::move(state));
  if (rdv.rank() == 0) {
    rdv.join_as_root(one_line(label));
  } else {
    rdv.join_as_member(one_line(label));
  }
  return rdv;
}

// Waits for every rank's hello, publishes the member list (again whenever a hello changes), and
// returns once every rank has acknowledged it.
void Rendezvous::join_as_root(const std::string& label) {
  State& s = *s_;
  const int n = s.options.world_size;
  s.run = random_hex(16);
  std::vector<Hello> members(static_cast<std::size_t>(n));
  members[0] = Hello{s.nonce, label};
  std::string published;
  const double deadline = s.deadline();
  for (;;) {
    throw_if_interrupted();
    std::vector<int> silent, unacknowledged;
    for (int r = 1; r < n; ++r) {
      const auto hello = parse_hello(s.read(fmt::format("hello.{}", r)));
      if (hello) members[static_cast<std::size_t>(r)] = *hello;
      else silent.push_back(r);
    }
    if (silent.empty()) {
      const std::string text = members_text(s.run, members);
      if (text != published) s.write("members.0", text);
      published = text;
      for (int r = 1; r < n; ++r) {
        const auto ack = s.read(fmt::format("ack.{}", r));
        if (!ack || *ack != ack_text(s.run, members[static_cast<std::size_t>(r)].nonce)) unacknowledged.push_back(r);
      }
      if (unacknowledged.empty()) break;
    }
    if (now_s() > deadline) {
      s.time_out(silent.empty() ? msg("ranks {ranks} did not acknowledge the member list",
                                      arg("ranks", ranks_text(unacknowledged)))
                                : msg("ranks {ranks} did not check in", arg("ranks", ranks_text(silent))));
    }
    s.pause();
  }
  for (const auto& m : members) s.labels.push_back(m.label);
}

// Checks in, and waits for a member list from rank 0 that holds this rank's own nonce.
void Rendezvous::join_as_member(const std::string& label) {
  State& s = *s_;
  const int me = s.options.rank;
  const std::string hello_name = fmt::format("hello.{}", me);
  const std::string hello = fmt::format("{} hello\n{}\n{}\n", kMagic, s.nonce, label);
  s.write(hello_name, hello);
  const double deadline = s.deadline();
  for (;;) {
    throw_if_interrupted();
    const auto text = s.read("members.0");
    const auto lines = text ? split_lines(*text) : std::vector<std::string>{};
    const auto n = static_cast<std::size_t>(s.options.world_size);
    if (lines.size() == n + 2 && lines[0] == fmt::format("{} members", kMagic) &&
        lines[2 + static_cast<std::size_t>(me)].rfind(s.nonce + " ", 0) == 0) {
      s.run = lines[1];
      for (std::size_t r = 0; r < n; ++r) {
        const std::string& line = lines[2 + r];
        const std::size_t space = line.find(' ');
        s.labels.push_back(space == std::string::npos ? std::string() : line.substr(space + 1));
      }
      s.write(fmt::format("ack.{}", me), ack_text(s.run, s.nonce));
      return;
    }
    // Rank 0 of an earlier run may have cleaned up after our hello was written: write it again.
    if (s.read(hello_name) != hello) s.write(hello_name, hello);
    if (now_s() > deadline) s.time_out(Message("rank 0 did not list this rank"));
    s.pause();
  }
}

std::string Rendezvous::broadcast(const std::string& key, const std::string& value) {
  check_key(key);
  State& s = *s_;
  if (s.options.rank == 0) {
    s.write_for_run(key, 0, value);
    return value;
  }
  const double deadline = s.deadline();
  for (;;) {
    throw_if_interrupted();
    if (auto payload = s.read_for_run(key, 0)) return *payload;
    if (now_s() > deadline) s.time_out(msg("rank 0 did not publish {key}", arg("key", key)));
    s.pause();
  }
}

std::vector<std::string> Rendezvous::gather(const std::string& key, const std::string& value) {
  check_key(key);
  State& s = *s_;
  if (s.options.rank != 0) {
    s.write_for_run(key, s.options.rank, value);
    return {value};
  }
  std::vector<std::optional<std::string>> got(static_cast<std::size_t>(s.options.world_size));
  got[0] = value;
  const double deadline = s.deadline();
  for (;;) {
    throw_if_interrupted();
    std::vector<int> missing;
    for (int r = 1; r < s.options.world_size; ++r) {
      auto& slot = got[static_cast<std::size_t>(r)];
      if (!slot) slot = s.read_for_run(key, r);
      if (!slot) missing.push_back(r);
    }
    if (missing.empty()) break;
    if (now_s() > deadline) {
      s.time_out(msg("ranks {ranks} did not hand in {key}", arg("ranks", ranks_text(missing)), arg("key", key)));
    }
    s.pause();
  }
  std::vector<std::string> out;
  for (auto& v : got) out.push_back(std::move(*v));
  return out;
}

void Rendezvous::post(const std::string& key) {
  check_key(key);
  s_->write_for_run(key, s_->options.rank, "");
}

void Rendezvous::beat() {
  State& s = *s_;
  // At least four beats within the timeout, so that a rank that beats is never taken for silent
  // (a timeout below a second, as the tests use, would otherwise outlast every beat).
  const double interval = std::min(kBeatInterval_s, s.options.timeout_s / 4);
  if (now_s() - s.last_beat_s < interval) return;
  s.last_beat_s = now_s();
  s.write_for_run("beat", s.options.rank, std::to_string(++s.beats));
}

void Rendezvous::wait_for(const std::string& key, const std::vector<int>& ranks) {
  check_key(key);
  State& s = *s_;
  std::vector<std::optional<std::string>> last_beat(ranks.size());
  std::vector<double> alive_at(ranks.size(), now_s());
  for (;;) {
    throw_if_interrupted();
    beat();
    std::vector<int> waiting, silent;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      if (s.read_for_run(key, ranks[i])) continue;
      waiting.push_back(ranks[i]);
      auto seen = s.read_for_run("beat", ranks[i]);
      if (seen && seen != last_beat[i]) alive_at[i] = now_s();
      last_beat[i] = std::move(seen);
      if (now_s() - alive_at[i] > s.options.timeout_s) silent.push_back(ranks[i]);
    }
    if (waiting.empty()) return;
    if (!silent.empty()) {
      s.time_out(msg("ranks {ranks} neither posted {key} nor showed signs of life", arg("ranks", ranks_text(silent)),
                     arg("key", key)));
    }
    s.pause();
  }
}

Rendezvous::~Rendezvous() {
  if (!s_ || s_->options.rank != 0) return;
  State& s = *s_;
  std::vector<std::string> keys = {"hello", "ack", "members", "beat"};
  for (const auto& name : s.names_used) {
    const std::string key = name.substr(0, name.rfind('.'));
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& key : keys) {
    for (int r = 0; r < s.options.world_size; ++r) ::unlinkat(s.folder.get(), fmt::format("{}.{}", key, r).c_str(), 0);
  }
  ::rmdir(s.options.folder.c_str());  // only when nothing else is left in it
}

}  // namespace cudalab
