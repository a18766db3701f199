// Who made a run and where, stamped on every lesson run before it is sealed, so the digest covers
// it: the user (the kernel's effective uid and its login name), the host, the GPUs measured on, a
// random run id, and the scheduler's context (Slurm job, array task, node, GPUs allocated; a
// torchrun-style rank). `grade` holds these against who handed the run in and against the class.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/report/report.hpp"

namespace cudalab {

// 32 lowercase hex digits: 128 bits from OpenSSL's RAND_bytes.
std::string new_run_id();

// The scheduler context as `lookup` (a getenv) reads it. A value longer than 64 characters or
// holding a control character is kept printable and cut: the environment is the user's to set.
using EnvironmentLookup = std::function<const char*(const char*)>;
SchedulerContext scheduler_context(const EnvironmentLookup& lookup);

// This process's provenance: its effective uid, the host, a fresh run id, the environment's
// scheduler context and `gpu_uuids`, the GPUs the lesson measured on.
Provenance current_provenance(std::vector<std::string> gpu_uuids);

// For people, one piece each (each translated on its own): "made by alice on gpu-node-3",
// "Slurm job 4242", "array task 4240_2", "rank 1 of 2". Run ids and GPU UUIDs are left to the JSON.
std::vector<Message> provenance_pieces(const Provenance& p);

// Sets report.provenance to current_provenance(gpu_uuids). Call before seal().
void stamp_provenance(Report& report, std::vector<std::string> gpu_uuids);

}  // namespace cudalab
