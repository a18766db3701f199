#include "common/report/provenance.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "common/core/identity.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

// The first of `names` that is set and not empty, made printable and at most 64 characters.
std::string first_set(const EnvironmentLookup& lookup, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = lookup(name);
    if (value != nullptr && *value != '\0') return printable_value(value, 64);
  }
  return {};
}

}  // namespace

std::string new_run_id() {
  // As digest.cpp: statically linked libcrypto must not read the system's openssl.cnf.
  static const bool initialised = OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) == 1;
  unsigned char bytes[16];
  if (!initialised || RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("libcrypto: no random bytes for a run id");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char b : bytes) {
    hex += kHex[b >> 4];
    hex += kHex[b & 0xF];
  }
  return hex;
}

SchedulerContext scheduler_context(const EnvironmentLookup& lookup) {
  SchedulerContext s;
  s.job_id = first_set(lookup, {"SLURM_JOB_ID"});
  s.array_job_id = first_set(lookup, {"SLURM_ARRAY_JOB_ID"});
  s.array_task_id = first_set(lookup, {"SLURM_ARRAY_TASK_ID"});
  s.node = first_set(lookup, {"SLURMD_NODENAME"});
  s.node_id = first_set(lookup, {"SLURM_NODEID"});
  // The GPUs the job step was given (srun sets SLURM_STEP_GPUS, a batch script has only the
  // job's), else CUDA_VISIBLE_DEVICES.
  s.gpus = first_set(lookup, {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES"});
  s.rank = first_set(lookup, {"RANK", "SLURM_PROCID"});
  s.world_size = first_set(lookup, {"WORLD_SIZE", "SLURM_NTASKS"});
  s.local_rank = first_set(lookup, {"LOCAL_RANK", "SLURM_LOCALID"});
  return s;
}

Provenance current_provenance(std::vector<std::string> gpu_uuids) {
  Provenance p;
  const uid_t uid = ::geteuid();
  p.uid = static_cast<long long>(uid);
  p.user = user_name(uid);
  p.host = host_name();
  p.run_id = new_run_id();
  p.gpu_uuids = std::move(gpu_uuids);
  p.scheduler = scheduler_context([](const char* name) { return std::getenv(name); });
  return p;
}

std::vector<Message> provenance_pieces(const Provenance& p) {
  std::vector<Message> pieces{msg("made by {user} on {node}", arg("user", p.user), arg("node", p.node()))};
  const SchedulerContext& s = p.scheduler;
  if (!s.job_id.empty()) pieces.push_back(msg("Slurm job {job}", arg("job", s.job_id)));
  if (!s.array_task_id.empty()) {
    pieces.push_back(msg("array task {job}_{task}", arg("job", s.array_job_id.empty() ? std::string("?") : s.array_job_id),
                         arg("task", s.array_task_id)));
  }
  if (!s.rank.empty()) {
    pieces.push_back(msg("rank {rank} of {ranks}", arg("rank", s.rank),
                         arg("ranks", s.world_size.empty() ? std::string("?") : s.world_size)));
  }
  return pieces;
}

void stamp_provenance(Report& report, std::vector<std::string> gpu_uuids) {
  report.provenance = current_provenance(std::move(gpu_uuids));
}

}  // namespace cudalab
