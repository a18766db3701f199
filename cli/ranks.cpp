#include "cli/ranks.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/rank_environment.hpp"
#include "common/queue/rendezvous.hpp"
#include "common/gpu/device.hpp"
#include "common/queue/queue_line.hpp"

extern char** environ;

namespace cudalab {

namespace {

// The variables a launcher sets per rank: the parent's own (it may run under srun or torchrun
// itself) must not reach the children.
const char* const kRankVariables[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "CUDALAB_RUN_ID"};

std::string fresh_run_id() {
  unsigned char bytes[8] = {};
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    throw RuntimeError("--ranks: the system gave no random bytes for a run id");
  }
  std::string id = "ranks-";
  for (const unsigned char b : bytes) id += fmt::format("{:02x}", b);
  return id;
}

// This process's environment without the rank variables, plus `extra`, as "NAME=value".
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool dropped = extra.count(name) > 0;
    for (const char* rank_var : kRankVariables) dropped = dropped || name == rank_var;
    if (!dropped) env.push_back(entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> out;
  for (auto& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

// The ranks as child processes: whatever way this scope is left, none outlives it (those still
// running get SIGKILL and are reaped).
class Children {
 public:
  ~Children() {
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      if (!done_[i]) {
        ::kill(pids_[i], SIGKILL);
        ::waitpid(pids_[i], nullptr, 0);
      }
    }
  }
  void start(std::vector<std::string> argv, std::vector<std::string> env) {
    pid_t pid = 0;
    auto argv_c = c_strings(argv);
    auto env_c = c_strings(env);
    const int err = ::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv_c.data(), env_c.data());
    if (err != 0) throw RuntimeError(msg("--ranks: cannot start a rank: {why}", arg("why", errno_words(err))));
    pids_.push_back(pid);
    done_.push_back(false);
    codes_.push_back(0);
  }
  // Reaps the children that ended; true while any still runs.
  bool reap() {
    bool running = false;
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      if (done_[i]) continue;
      int status = 0;
      const pid_t got = ::waitpid(pids_[i], &status, WNOHANG);
      if (got == pids_[i]) {
        done_[i] = true;
        codes_[i] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      } else {
        running = true;
      }
    }
    return running;
  }
  void signal_running(int sig) {
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      if (!done_[i]) ::kill(pids_[i], sig);
    }
  }
  bool any_failed() const {
    for (std::size_t i = 0; i < pids_.size(); ++i) {
      if (done_[i] && codes_[i] != 0) return true;
    }
    return false;
  }
  // Rank 0's code when it failed, else the first failing rank's, else 0.
  int exit_code() const {
    for (const int code : codes_) {
      if (code != 0) return codes_.front() != 0 ? codes_.front() : code;
    }
    return 0;
  }

 private:
  std::vector<pid_t> pids_;
  std::vector<bool> done_;
  std::vector<int> codes_;
};

// Waits for every rank. When one fails, the others get SIGTERM (each ends within its own
// interrupt backstop), then SIGKILL after kRankGraceS; a signal to the launcher goes to them too.
int wait_for_ranks(Children& children) {
  std::optional<std::chrono::steady_clock::time_point> stopping_since;
  try {
    while (children.reap()) {
      if (children.any_failed() && !stopping_since) {
        children.signal_running(SIGTERM);
        stopping_since = std::chrono::steady_clock::now();
      }
      if (stopping_since && std::chrono::steady_clock::now() - *stopping_since > std::chrono::duration<double>(kRankGraceS)) {
        children.signal_running(SIGKILL);
      }
      sleep_unless_interrupted(std::chrono::milliseconds(20));
    }
  } catch (const InterruptedError&) {
    children.signal_running(SIGTERM);
    throw;
  }
  return children.exit_code();
}

}  // namespace

std::optional<RankEnvironment> rank_of_process(const LessonSetup& setup, const Invocation& inv) {
  if (inv.command != Command::lesson || !setup.lesson->runs_as_ranks()) return std::nullopt;
  auto env = rank_environment();
  if (!env) return std::nullopt;
  const int asked = setup.lesson->ranks_to_start();
  if (asked > 0 && asked != env->world_size) {
    throw UsageError(msg("--ranks {asked}: this process is already rank {rank} of {ranks} ({source}); leave --ranks out "
                         "under a launcher",
                         arg("asked", asked), arg("rank", env->rank), arg("ranks", env->world_size), arg("source", env->source)));
  }
  return env;
}

Rendezvous meet_ranks(const RankEnvironment& rank, const std::string& gpu) {
  RendezvousOptions options;
  options.folder = rendezvous_folder(rank);
  options.rank = rank.rank;
  options.world_size = rank.world_size;
  options.timeout_s = rendezvous_timeout_s();
  Rendezvous rendezvous = Rendezvous::join(options, gpu);
  const auto& gpus = rendezvous.labels();
  for (std::size_t a = 0; a < gpus.size(); ++a) {
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      if (gpus[a] == gpus[b]) {
        throw UsageError(msg("ranks {first} and {second} both measure on {gpu}: give each rank a GPU of its own "
                             "(LOCAL_RANK, or srun --gpus-per-task=1)",
                             arg("first", a), arg("second", b), arg("gpu", gpus[a])));
      }
    }
  }
  return rendezvous;
}

GpuTurns take_turn_as_rank(Rendezvous& rendezvous, QueueOptions options) {
  const auto& gpus = rendezvous.labels();
  const int me = rendezvous.rank();
  std::vector<int> before, others;
  for (int r = 0; r < rendezvous.world_size(); ++r) {
    if (r == me) continue;
    others.push_back(r);
    if (gpus[static_cast<std::size_t>(r)] < gpus[static_cast<std::size_t>(me)]) before.push_back(r);
  }
  rendezvous.wait_for("turn", before);
  WaitingLine line;
  options.on_wait = [&](const QueueView& view) {
    rendezvous.beat();  // a long wait in the queue is not a dead rank
    line.show(view);
  };
  GpuTurns turns = take_gpu_turns({gpus[static_cast<std::size_t>(me)]}, options);
  if (turns.record().wait_s > 0) line.done(gpus[static_cast<std::size_t>(me)], turns.record().wait_s);
  rendezvous.post("turn");
  rendezvous.wait_for("turn", others);
  return turns;
}

int launch_ranks(const LessonSetup& setup, const Invocation& inv) {
  const int n = setup.lesson->ranks_to_start();
  const int visible = device_count();  // no context: the launcher never shows up on the GPU
  if (visible < n) {
    throw WaivedError(msg("--ranks {count}: one process per GPU needs {count} GPUs; this machine has {visible}",
                          arg("count", n), arg("visible", visible)));
  }
  const std::string run_id = fresh_run_id();
  Children children;
  for (int rank = 0; rank < n; ++rank) {
    std::map<std::string, std::string> extra = {{"RANK", std::to_string(rank)},       {"WORLD_SIZE", std::to_string(n)},
                                                {"LOCAL_RANK", std::to_string(rank)}, {"LOCAL_WORLD_SIZE", std::to_string(n)},
                                                {"CUDALAB_RUN_ID", run_id}};
    for (const auto& [name, value] : setup.lesson->environment_of_ranks()) extra[name] = value;
    children.start(inv.arguments, child_environment(extra));
  }
  const int code = wait_for_ranks(children);
  // Rank 0 removes the run's folder when it ends well; after a failure, what it left goes too.
  RankEnvironment env;
  env.run_key = run_id;
  remove_rendezvous_folder(rendezvous_folder(env));
  return code;
}

}  // namespace cudalab
