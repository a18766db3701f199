// One process per GPU, for a lesson that runs as ranks (Lesson::runs_as_ranks), as training runs:
//
// - `cudalab NN --ranks N` starts N copies of this very command on this host, one per GPU, with
//   the environment torchrun would give them (RANK, WORLD_SIZE, LOCAL_RANK, a run id of their
//   own) and waits for them. Rank 0 prints the report; the exit code is rank 0's, or the first
//   failing rank's. The launcher creates no CUDA context and takes no GPU turn.
// - Under a launcher (that one, torchrun, srun), `cudalab NN` is one rank: it measures only its
//   own GPU, meets the other ranks through a folder (queue/rendezvous.hpp) before any of them
//   creates a CUDA context, and takes its own GPU's turn in the queue, in one order across the
//   ranks (by GPU, as one process takes several GPUs' turns), so that two runs of ranks never
//   wait for each other's GPUs in a cycle. No rank measures before every rank holds its turn.
#pragma once

#include <optional>

#include "cli/invocation.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/core/rank_environment.hpp"
#include "common/queue/rendezvous.hpp"

namespace cudalab {

// When a rank fails, the others still running get SIGTERM, and SIGKILL after this long.
inline constexpr double kRankGraceS = 2.0;

int launch_ranks(const LessonSetup& setup, const Invocation& inv);

// This process as a rank: only a lesson run (`cudalab NN`, not `all` or live mode) of a lesson
// that runs as ranks, under a launcher's variables. UsageError when --ranks says another count.
std::optional<RankEnvironment> rank_of_process(const LessonSetup& setup, const Invocation& inv);

// Meets the other ranks, `gpu` (this rank's GPU's queue name) as this rank's label. UsageError
// when two ranks name the same GPU.
Rendezvous meet_ranks(const RankEnvironment& rank, const std::string& gpu);

// This rank's GPU turn, taken in the ranks' one order, with `options` (its waiting line also
// tells the other ranks this one is alive); returns once every rank holds its own.
GpuTurns take_turn_as_rank(Rendezvous& rendezvous, QueueOptions options);

}  // namespace cudalab
