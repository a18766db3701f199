// Lesson 10 as one rank of a run with one process per GPU (RunContext::rank), the way
// data-parallel training runs: rank 0 makes the NCCL unique id and hands it to the others
// through the rendezvous, every rank joins the communicator and measures the training step on
// its own GPU, and rank 0 gathers what every rank measured into one run.
#pragma once

#include "common/core/run_context.hpp"
#include "measure.hpp"
#include "params.hpp"

namespace cudalab::multi_gpu {

// Rank 0 gets the whole run; any other rank only its own part (it reports nothing).
Measurements measure_as_rank(const Params& p, const RunContext& ctx);

}  // namespace cudalab::multi_gpu
