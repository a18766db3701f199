// With one process per GPU, each rank measures its own GPU and hands rank 0 what it found, as
// text through the rendezvous (common/queue/rendezvous.hpp); rank 0 merges the ranks into one
// run. Pure: the format, its reader and the merge are unit-tested without a GPU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "measure.hpp"

namespace cudalab::multi_gpu {

struct RankResult {
  int rank = 0;
  std::string host;
  GpuFacts gpu;
  NcclSettings nccl_settings;
  TrainingStep step;  // this rank's samples and gradient tally; its sweep too
};

// Lines of "key value...": every sample written so that reading it back gives the same double.
std::string encode_rank_result(const RankResult& result);

// The text read back. The text crossed a shared folder, so it is checked line by line:
// RuntimeError naming the line on anything unexpected (an unknown key, a missing or extra
// value, a number that is not finite), and on more than kMaxRankResultBytes.
inline constexpr std::size_t kMaxRankResultBytes = 4u << 20;
RankResult decode_rank_result(std::string_view text);

// Rank 0's one run from every rank's result, in rank order: each timed sample is the slowest
// rank's (the step ends when every GPU's does), the gradient tallies are summed, and the GPUs
// and hosts listed in rank order. RuntimeError when the ranks disagree on what they ran (sample
// counts, sweep sizes): they ran different flags.
Measurements merge_rank_results(const std::vector<RankResult>& results, const std::string& source);

}  // namespace cudalab::multi_gpu
