// One process of a run that starts one process per GPU, as the launcher describes it in the
// environment: torchrun (and `cudalab NN --ranks N`) set RANK, WORLD_SIZE and LOCAL_RANK; srun
// sets SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID in every task of a job step. Pure: the
// variables come through a lookup function, so tests need no environment of their own.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace cudalab {

// The most processes one run may have (ranks across all its nodes).
inline constexpr int kMaxWorldSize = 1024;

struct RankEnvironment {
  int rank = 0;        // 0 .. world_size - 1; rank 0 gathers and reports
  int world_size = 1;  // processes in the run
  int local_rank = 0;  // this process's place on its own node: which GPU it takes
  std::string source;  // the variables it came from: "RANK/WORLD_SIZE" or "SLURM_PROCID/SLURM_NTASKS"
  // Names the run: the same in every rank of one run, different between runs, so that the ranks
  // of one run find each other (queue/rendezvous.hpp) and never a stale file of another.
  // CUDALAB_RUN_ID when set; else the Slurm job and step; else torchrun's MASTER_ADDR and
  // MASTER_PORT (with TORCHELASTIC_RUN_ID and its restart count, when set).
  std::string run_key;
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// nullopt when no launcher's variables are set, or the run has a single process (nothing to
// share). Under Slurm only a job step counts (srun sets SLURM_STEP_ID): a batch script also
// carries SLURM_PROCID and SLURM_NTASKS, but it is one process, not a rank. Throws UsageError,
// one line naming the variable, for a value that is not a whole number in its range, for RANK
// without WORLD_SIZE, and when nothing names the run.
std::optional<RankEnvironment> rank_environment(const EnvironmentLookup& lookup);
std::optional<RankEnvironment> rank_environment();  // the process's own environment

// The CUDA device a rank measures on: its local rank among the devices it sees, or device 0 when
// it sees exactly one (srun --gpus-per-task, or CUDA_VISIBLE_DEVICES set per rank). Throws
// UsageError when it sees fewer devices than its local rank needs.
int device_of_rank(const RankEnvironment& env, int visible_devices);

}  // namespace cudalab
