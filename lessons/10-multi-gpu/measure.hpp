// Lesson 10's experiment on several GPUs, and everything it measured, as plain data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
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
  // The same two, large_bytes, moved by the SMs (a copy kernel storing into the other GPU)
  // instead of copy engines; empty without peer access.
  int sm_blocks = 0;                   // blocks of the copy kernel: every SM filled once
  std::vector<double> sm_one_way_ms;   // GPU 0's SMs -> GPU 1
  std::vector<double> sm_both_ms;      // GPU 0's SMs -> 1 and GPU 1's SMs -> 0 at once
  // Every copy above follows an untimed copy that wakes the link; these two follow 100 ms of idle
  // host instead, when a link may have dropped into its low-power state.
  std::vector<double> cold_one_ms;     // as large_ms
  std::vector<double> cold_both_ms;    // as both_ms
  std::vector<double> staged_ms;       // 0 -> pinned host -> 1, large_bytes
  std::vector<double> d2h_ms;          // the staged copy's first hop alone
  std::vector<double> h2d_ms;          // ... and its second hop alone
  Tally bytes;                         // bytes that arrived intact, every copy of every run
};

// One gradient size of the sweep (model.hpp, sweep_sizes): the step again with layers of the
// same length and all-reduces of another size, to find where communication outgrows the compute
// it could hide behind. In ms, one sample per run, the slowest GPU's.
struct SweepPoint {
  std::uint64_t grad_bytes = 0;
  std::vector<double> layer_ms;      // one layer alone (it writes a gradient of this size)
  std::vector<double> allreduce_ms;  // one layer's all-reduce alone
  std::vector<double> serial_ms;     // (a)
  std::vector<double> priority_ms;   // (c)
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
  std::vector<SweepPoint> sweep;      // the other gradient sizes
  Tally gradients;                    // elements equal to the CPU's sum, every GPU, every run
};

// How the run was laid out: one process driving every GPU, or one process per GPU (a rank each,
// started by a launcher or by --ranks), rank 0 reporting for all.
struct Processes {
  int world_size = 1;              // 1: one process
  std::string source;              // the launcher's variables, "RANK/WORLD_SIZE"; "" for one process
  std::vector<std::string> hosts;  // each rank's host name (one process: its own)
};

// The NCCL variables that steer its transport (NCCL_P2P_DISABLE, ...), as set in the process
// that measured: name and value, only those set.
using NcclSettings = std::vector<std::pair<std::string, std::string>>;

struct Measurements {
  Processes processes;
  NcclSettings nccl_settings;
  int visible_gpus = 0;
  std::vector<GpuFacts> gpus;  // the ones used, in rank order
  std::vector<PeerLink> links; // every ordered pair of them
  PeerCopies copies;           // empty with one process per GPU: a peer copy needs both GPUs in one
  TrainingStep step;
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::multi_gpu
