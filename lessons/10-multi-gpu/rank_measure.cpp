#include "rank_measure.hpp"

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/queue/rendezvous.hpp"
#include "common/gpu/nccl_loader.hpp"
#include "rank_result.hpp"
#include "run_setting.hpp"
#include "step.hpp"

namespace cudalab::multi_gpu {

namespace {

// What every rank must agree on, or their all-reduces would not pair up: the flags that decide
// how many NCCL calls a run makes, and their sizes.
std::string run_plan(const Params& p, const RunContext& ctx) {
  return fmt::format("layers={} grad-size={} layer-us={} warmup={} repeat={} traced={} transport={}", p.layers,
                     p.grad_size, p.layer_us, ctx.reps.warmup, ctx.reps.repeat, ctx.tracing() ? "yes" : "no",
                     p.transport);
}

// Rank 0's plan and NCCL unique id, to every rank; UsageError on a rank whose flags differ.
std::string shared_unique_id(const Params& p, const RunContext& ctx) {
  const std::string plan = run_plan(p, ctx);
  const bool root = ctx.rank->rank == 0;
  const std::string shared = ctx.rendezvous->broadcast("nccl-id", root ? plan + "\n" + new_nccl_unique_id_text() : "");
  const std::size_t newline = shared.find('\n');
  const std::string root_plan = shared.substr(0, newline);
  if (root_plan != plan) {
    throw UsageError(
        msg("rank {rank} runs with {plan} but rank 0 with {root_plan}: start every rank with the same flags",
            arg("rank", ctx.rank->rank), arg("plan", plan), arg("root_plan", root_plan)));
  }
  return newline == std::string::npos ? std::string() : shared.substr(newline + 1);
}

}  // namespace

Measurements measure_as_rank(const Params& p, const RunContext& ctx) {
  const RankEnvironment& env = *ctx.rank;
  if (p.gpus && *p.gpus != env.world_size) {
    throw UsageError(msg("--gpus {gpus}: with one process per GPU the run has {ranks} GPUs ({variable}={ranks}); "
                         "leave --gpus out",
                         arg("gpus", *p.gpus), arg("ranks", env.world_size),
                         arg("variable", env.source.substr(env.source.find('/') + 1))));
  }
  (void)nccl();  // waive before any work when NCCL is missing
  StepComms comms;
  comms.rank = std::make_unique<NcclRankComm>(nccl_unique_id_from_text(shared_unique_id(p, ctx)), env.world_size,
                                              env.rank, rendezvous_timeout_s());
  comms.world_size = env.world_size;
  comms.first_rank = env.rank;
  RankResult mine;
  mine.rank = env.rank;
  mine.host = host_name();
  mine.gpu = query_gpu(ctx.device);
  mine.nccl_settings = nccl_transport_settings();
  std::vector<Timeline> timelines;
  mine.step = measure_training_step(p, ctx, {mine.gpu}, comms, timelines);
  // Handed in before the communicator is destroyed: rank 0 must not wait on a rank's teardown.
  const std::vector<std::string> texts = ctx.rendezvous->gather("result", encode_rank_result(mine));
  if (env.rank != 0) {  // its own part, for a report nobody prints
    Measurements own;
    own.processes.world_size = env.world_size;
    own.gpus = {mine.gpu};
    own.step = std::move(mine.step);
    return own;
  }
  std::vector<RankResult> results;
  for (const auto& text : texts) results.push_back(decode_rank_result(text));
  Measurements m = merge_rank_results(results, env.source);
  m.timelines = std::move(timelines);
  return m;
}

}  // namespace cudalab::multi_gpu
