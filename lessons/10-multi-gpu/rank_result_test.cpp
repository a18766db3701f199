// Lesson 10 with one process per GPU, without a GPU: what a rank hands rank 0, read back
// exactly, refused when it is not what a rank writes, and merged into one run.
#include <gtest/gtest.h>

#include <string>

#include "common/core/errors.hpp"
#include "model.hpp"
#include "params.hpp"
#include "rank_result.hpp"
#include "report.hpp"

using namespace cudalab::multi_gpu;

namespace {

RankResult made_up_rank(int rank, double scale) {
  RankResult r;
  r.rank = rank;
  r.host = "node-0" + std::to_string(rank);
  r.gpu = {{rank, "NVIDIA H100 80GB HBM3", 9, 0, 132, 3}, 0, -5};
  r.nccl_settings = {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SOCKET_IFNAME", "=eth0,eth1"}};
  TrainingStep& s = r.step;
  s.nccl_version = 22809;
  s.layer_blocks = 5280;
  s.compute_priority = 0;
  s.comm_priority = -5;
  s.layer_ms = {0.11 * scale, 0.1100000000000001 * scale};
  s.allreduce_ms = {0.098 * scale, 0.1 * scale};
  s.serial_ms = {1.572 * scale, 1.57 * scale};
  s.overlapped_ms = {1.19 * scale, 1.2 * scale};
  s.priority_ms = {1.09 * scale, 1.12 * scale};
  s.sweep = {{1u << 20, {0.11, 0.11}, {0.015, 0.016}, {1.0, 1.01}, {0.9, 0.91}},
             {64u << 20, {0.12, 0.12}, {0.25 * scale, 0.26}, {2.9, 2.95}, {2.2, 2.3}}};
  s.gradients.add(100, 100 + static_cast<std::size_t>(rank));
  return r;
}

std::string decode_error(const std::string& text) {
  try {
    (void)decode_rank_result(text);
  } catch (const cudalab::RuntimeError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RankResult, ReadsBackExactlyWhatWasWritten) {
  const RankResult r = made_up_rank(1, 1.0 / 3.0);
  const RankResult back = decode_rank_result(encode_rank_result(r));
  EXPECT_EQ(back.rank, 1);
  EXPECT_EQ(back.host, "node-01");
  EXPECT_EQ(back.gpu.summary.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(back.gpu.summary.sm_count, 132);
  EXPECT_EQ(back.gpu.greatest_priority, -5);
  EXPECT_EQ(back.nccl_settings, r.nccl_settings);
  EXPECT_EQ(back.step.nccl_version, 22809);
  EXPECT_EQ(back.step.comm_priority, -5);
  EXPECT_EQ(back.step.layer_ms, r.step.layer_ms);  // bit for bit: shortest round-trip text
  EXPECT_EQ(back.step.priority_ms, r.step.priority_ms);
  ASSERT_EQ(back.step.sweep.size(), 2u);
  EXPECT_EQ(back.step.sweep[1].grad_bytes, 64u << 20);
  EXPECT_EQ(back.step.sweep[1].allreduce_ms, r.step.sweep[1].allreduce_ms);
  EXPECT_EQ(back.step.gradients.checked, 101u);
}

TEST(RankResult, RefusesWhatARankDoesNotWrite) {
  const std::string good = encode_rank_result(made_up_rank(0, 1.0));
  EXPECT_EQ(decode_error(good), "");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "empty"},
      {"cudalab-run 1\nrank 0\n", "not a rank's result"},
      {good + "samples layer 0.1 nan\n", "not a finite number"},
      {good + "samples layer 0.1 1e999\n", "not a finite number"},
      {good + "samples bogus 1\n", "no samples named"},
      {good + "rank 0 1\n", "rank needs 1 values"},
      {good + "rank -1\n", "not a whole number"},
      {good + "gradients 1.5 2\n", "not a whole number"},
      {good + "launch missiles\n", "unknown key"},
      {good + "\n\n", "an empty line"},
      {good + "gpu 0 9 0 132\n", "gpu needs"},
      {std::string(5u << 20, 'x'), "larger than 4 MiB"},
  };
  for (const auto& [text, why] : bad) {
    const std::string error = decode_error(text);
    EXPECT_NE(error.find(why), std::string::npos) << "[" << error << "] for " << text.substr(0, 60);
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

TEST(RankResult, MergeTakesTheSlowestRankPerSample) {
  const Measurements m = merge_rank_results({made_up_rank(0, 1.0), made_up_rank(1, 1.05)}, "RANK/WORLD_SIZE");
  EXPECT_EQ(m.processes.world_size, 2);
  EXPECT_EQ(m.processes.source, "RANK/WORLD_SIZE");
  EXPECT_EQ(m.processes.hosts, (std::vector<std::string>{"node-00", "node-01"}));
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[1].summary.index, 1);
  EXPECT_DOUBLE_EQ(m.step.serial_ms[0], 1.572 * 1.05);
  EXPECT_DOUBLE_EQ(m.step.sweep[1].allreduce_ms[0], 0.25 * 1.05);
  EXPECT_DOUBLE_EQ(m.step.sweep[1].allreduce_ms[1], 0.26);
  EXPECT_EQ(m.step.gradients.checked, 201u);
  EXPECT_TRUE(m.copies.large_ms.empty());  // nothing copied between processes

  RankResult short_run = made_up_rank(1, 1.0);
  short_run.step.serial_ms.pop_back();  // a rank that ran other flags
  EXPECT_THROW(merge_rank_results({made_up_rank(0, 1.0), short_run}, "RANK/WORLD_SIZE"), cudalab::RuntimeError);
  EXPECT_THROW(merge_rank_results({made_up_rank(1, 1.0), made_up_rank(0, 1.0)}, "RANK/WORLD_SIZE"),
               cudalab::RuntimeError);  // out of rank order
}

TEST(RankResult, ARunOfRanksReportsTheStepWithoutPeerCopies) {
  Params p;
  p.layers = 2;
  p.grad_size = 16u << 20;
  const Measurements m = merge_rank_results({made_up_rank(0, 1.0), made_up_rank(1, 1.0)}, "SLURM_PROCID/SLURM_NTASKS");
  const cudalab::Report r = build_report(p, m, predict(p, m));
  EXPECT_EQ(r.find_metric("peer.one_way"), nullptr);
  EXPECT_NE(r.find_metric("step.overlapped"), nullptr);
  EXPECT_EQ(r.headline_metrics, (std::vector<std::string>{"step.overlapped", "step.priority"}));
  EXPECT_EQ(r.headline.en().rfind("2 ranks; step", 0), 0u) << r.headline;
  bool ranks_section = false;
  for (const auto& s : r.sections) ranks_section = ranks_section || s.key == "ranks";
  EXPECT_TRUE(ranks_section);
  for (const auto& c : r.checks) EXPECT_NE(c.key, "copies");  // no copies to verify
}
