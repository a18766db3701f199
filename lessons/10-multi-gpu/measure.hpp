// Lesson 10's experiment on several GPUs, and everything it measured, as plain data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::multi_gpu {

struct GpuFacts {
  DeviceSummary summary;  // name, SMs, copy engines (asyncEngineCount)
  int least_priority = 0;
  int greatest_priority = 0;
};

// What CUDA says about one ordered pair of GPUs.
struct PeerLink {
  int from = 0;
  int to = 0;
  bool can_access = false;     // cudaDeviceCanAccessPeer
  int performance_rank = 0;    // cudaDevP2PAttrPerformanceRank: lower is a better link
  bool native_atomics = false; // cudaDevP2PAttrNativeAtomicSupported: a hint of NVLink
};

// The copy experiments between the first two GPUs, all in milliseconds per copy.
struct PeerCopies {
  bool peer_access = false;            // enabled both ways (else the driver stages peer copies)
  std::uint64_t small_bytes = 0;       // latency
  std::uint64_t large_bytes = 0;       // bandwidth (--copy-size)
  std::uint64_t mid_bytes = 0;         // the size the link model predicts
  std::vector<double> small_ms;        // GPU 0 -> 1
  std::vector<double> large_ms;        // GPU 0 -> 1
  std::vector<double> mid_ms;          // GPU 0 -> 1
  std::vector<double> both_ms;         // 0 -> 1 and 1 -> 0 at once, large_bytes each way
  // Every copy above follows an untimed copy that wakes the link; these two follow 100 ms of idle
  // host instead, when a link may have dropped into its low-power state.
  std::vector<double> cold_one_ms;     // as large_ms
  std::vector<double> cold_both_ms;    // as both_ms
  std::vector<double> staged_ms;       // 0 -> pinned host -> 1, large_bytes
  std::vector<double> d2h_ms;          // the staged copy's first hop alone
  std::vector<double> h2d_ms;          // ... and its second hop alone
  Tally bytes;                         // bytes that arrived intact, every copy of every run
};

// The simulated training step: per GPU, `layers` layer kernels, each followed by an all-reduce
// of its gradient. One sample per run: the slowest GPU's time, start to end, in ms.
struct TrainingStep {
  int nccl_version = 0;
  int layer_blocks = 0;               // blocks per layer kernel (whole waves)
  int comm_priority = 0;              // what the high-priority comm stream was granted
  int compute_priority = 0;
  std::vector<double> layer_ms;       // one layer kernel alone
  std::vector<double> allreduce_ms;   // one layer's all-reduce alone
  std::vector<double> serial_ms;      // (a) compute then comm, one stream
  std::vector<double> overlapped_ms;  // (b) comm stream per GPU, same priority
  std::vector<double> priority_ms;    // (c) comm stream at high priority
  Tally gradients;                    // elements equal to the CPU's sum, every GPU, every run
};

struct Measurements {
  int visible_gpus = 0;
  std::vector<GpuFacts> gpus;  // the ones used, in rank order
  std::vector<PeerLink> links; // every ordered pair of them
  PeerCopies copies;
  TrainingStep step;
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::multi_gpu
