// How the processes of one run (one per GPU, core/rank_environment.hpp) find each other and
// trade a few lines of text: rank 0 hands everyone the NCCL unique id, every rank hands rank 0
// what it measured. Through files in a folder all ranks can reach (a node's /tmp on one host, a
// shared filesystem across nodes), as torch's FileStore does; no network of our own.
//
// Every file is written under a temporary name and renamed into place, so a reader sees all of
// it or nothing. Every wait polls with a deadline and ends in one line that says who did not
// answer. Stale files of an earlier run that used the same folder are never taken for this
// run's: each rank checks in with a fresh random nonce, rank 0 names the run by another and
// lists the ranks' nonces, a rank accepts only a member list that holds its own nonce, and every
// later file starts with the run's name. Rank 0 waits until every rank has acknowledged the
// list, and publishes it again if a rank checks in anew (a stale check-in replaced by the live
// one). No CUDA here: the ranks meet before any of them creates a CUDA context.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "common/core/errors.hpp"
#include "common/core/rank_environment.hpp"

namespace cudalab {

// A rank did not answer in time, or the folder cannot be used: one line, exit code 3.
struct RendezvousError : RuntimeError {
  using RuntimeError::RuntimeError;
};

inline constexpr double kDefaultRendezvousTimeoutS = 120;

// The run's folder: in $CUDALAB_RENDEZVOUS (a folder every rank reaches: a shared filesystem
// when the ranks span nodes), else $TMPDIR, else /tmp, a folder of this user's for this run:
// "cudalab-rendezvous-<uid>-<run key>".
std::string rendezvous_folder(const RankEnvironment& env);

// How long a rank waits for another: $CUDALAB_RANK_TIMEOUT seconds (1 to 3600), else
// kDefaultRendezvousTimeoutS. UsageError naming the variable on a bad value.
double rendezvous_timeout_s();

// Removes a run's folder and the files in it, when it is a folder of this user's; nothing
// otherwise. For whoever started the ranks, after they ended (one may have died before rank 0
// could clean up).
void remove_rendezvous_folder(const std::string& folder);

struct RendezvousOptions {
  std::string folder;  // created (mode 0700) when missing; refused when not ours or a symlink
  int rank = 0;
  int world_size = 1;
  double timeout_s = kDefaultRendezvousTimeoutS;
  double poll_s = 0.02;
};

class Rendezvous {
 public:
  // Checks in with `label` (one line: the rank's GPU, say) and returns when every rank of the
  // run has: rank 0 once all have acknowledged its member list, the others once they have
  // acknowledged it. Throws RendezvousError after timeout_s without the others,
  // InterruptedError on Ctrl-C or SIGTERM.
  static Rendezvous join(RendezvousOptions options, const std::string& label);

  Rendezvous(Rendezvous&&) noexcept;
  Rendezvous& operator=(Rendezvous&&) noexcept;
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;
  // Rank 0 removes the run's files (every rank has read what it needed by the time rank 0 ends:
  // the last exchange of a run is a gather into rank 0), and the folder when that leaves it empty.
  ~Rendezvous();

  int rank() const;
  int world_size() const;
  const std::string& folder() const;
  // Every rank's label, in rank order.
  const std::vector<std::string>& labels() const;

  // Rank 0 publishes `value` (any text) under `key` ([a-z0-9-], 1 to 40 characters); the
  // others get it. Returns the value on every rank.
  std::string broadcast(const std::string& key, const std::string& value);
  // Every rank hands `value` to rank 0. Rank 0 gets all of them in rank order; the others get
  // only their own back.
  std::vector<std::string> gather(const std::string& key, const std::string& value);
  // Marks `key` done for this rank (a turn taken, say).
  void post(const std::string& key);
  // Waits until every rank in `ranks` has posted `key`. A rank may take long (it may wait in
  // its GPU's queue) as long as it shows signs of life (beat()); one that neither posts nor
  // beats for timeout_s ends the wait with RendezvousError.
  void wait_for(const std::string& key, const std::vector<int>& ranks);
  // A sign of life while this rank waits for something else (at most one write a second).
  void beat();

 private:
  struct State;
  explicit Rendezvous(std::unique_ptr<State> state);
  void join_as_root(const std::string& label);
  void join_as_member(const std::string& label);
  std::unique_ptr<State> s_;  // null in a moved-from object
};

}  // namespace cudalab
