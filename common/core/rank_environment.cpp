#include "common/core/rank_environment.hpp"

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/units.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxRunKeyLength = 100;

const char* set_or_null(const EnvironmentLookup& lookup, const char* name) {
  const char* value = lookup(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// A variable's value as a whole number in [min, max]; UsageError naming it otherwise.
int whole_number(const EnvironmentLookup& lookup, const char* name, long long min, long long max) {
  const char* text = set_or_null(lookup, name);
  if (text == nullptr) {
    throw UsageError(
        msg("{variable} is not set; the launcher must set it in every rank", arg("variable", std::string(name))));
  }
  const Message why = whole_number_problem(text, min, max);
  if (!why.empty()) {
    throw UsageError(msg("{variable} (from the launcher's environment): {problem}", arg("variable", std::string(name)),
                         arg("problem", why)));
  }
  return static_cast<int>(*parse_whole_number(text));
}

// Letters, digits, '.', '_' and '-' as they are; anything else becomes '_'; cut to a length a
// folder name can take.
std::string folder_safe(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, kMaxRunKeyLength)) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    out += safe ? c : '_';
  }
  return out;
}

std::string run_key_of(const EnvironmentLookup& lookup, bool slurm) {
  if (const char* id = set_or_null(lookup, "CUDALAB_RUN_ID")) return folder_safe(id);
  if (slurm) {
    const char* job = set_or_null(lookup, "SLURM_JOB_ID");
    return folder_safe(fmt::format("slurm-{}.{}", job ? job : "0", lookup("SLURM_STEP_ID")));
  }
  const char* port = set_or_null(lookup, "MASTER_PORT");
  if (port == nullptr) {
    throw UsageError(
        "RANK and WORLD_SIZE are set but nothing names the run: set MASTER_ADDR and MASTER_PORT (as torchrun "
        "does) or CUDALAB_RUN_ID, the same in every rank");
  }
  const char* addr = set_or_null(lookup, "MASTER_ADDR");
  const char* elastic = set_or_null(lookup, "TORCHELASTIC_RUN_ID");
  const char* restart = set_or_null(lookup, "TORCHELASTIC_RESTART_COUNT");
  return folder_safe(fmt::format("torch-{}-{}-{}-{}", addr ? addr : "localhost", port, elastic ? elastic : "",
                                 restart ? restart : "0"));
}

}  // namespace

std::optional<RankEnvironment> rank_environment(const EnvironmentLookup& lookup) {
  const bool torch = set_or_null(lookup, "RANK") != nullptr;
  // srun sets SLURM_STEP_ID in every task; a batch script (one process) has no step of its own.
  const bool slurm = !torch && set_or_null(lookup, "SLURM_PROCID") != nullptr &&
                     set_or_null(lookup, "SLURM_STEP_ID") != nullptr;
  if (!torch && !slurm) return std::nullopt;
  RankEnvironment env;
  const char* rank_var = torch ? "RANK" : "SLURM_PROCID";
  const char* world_var = torch ? "WORLD_SIZE" : "SLURM_NTASKS";
  const char* local_var = torch ? "LOCAL_RANK" : "SLURM_LOCALID";
  env.source = fmt::format("{}/{}", rank_var, world_var);
  env.world_size = whole_number(lookup, world_var, 1, kMaxWorldSize);
  if (env.world_size == 1) return std::nullopt;
  env.rank = whole_number(lookup, rank_var, 0, env.world_size - 1);
  // torchrun always sets LOCAL_RANK; by hand on one host it is the rank itself.
  env.local_rank = set_or_null(lookup, local_var) ? whole_number(lookup, local_var, 0, env.world_size - 1) : env.rank;
  env.run_key = run_key_of(lookup, slurm);
  return env;
}

std::optional<RankEnvironment> rank_environment() {
  return rank_environment([](const char* name) -> const char* { return std::getenv(name); });
}

int device_of_rank(const RankEnvironment& env, int visible_devices) {
  if (visible_devices == 1) return 0;
  if (env.local_rank < visible_devices || visible_devices == 0) return env.local_rank;
  throw UsageError(msg("rank {rank} of {ranks} has local rank {local_rank} but sees only {devices} CUDA devices; start "
                       "at most {devices} ranks per node, or give each rank its own GPU (srun --gpus-per-task=1)",
                       arg("rank", env.rank), arg("ranks", env.world_size), arg("local_rank", env.local_rank),
                       arg("devices", visible_devices)));
}

}  // namespace cudalab
