// Lesson 10's flags: one table, read by CLI11 and by the report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/lesson/flag_table.hpp"

namespace cudalab::multi_gpu {

inline constexpr int kMinGpus = 2;
inline constexpr int kMaxGpus = 8;
// 4 KiB at least: one NCCL chunk; 256 MiB at most keeps 32 layers within a GPU's memory.
inline constexpr std::uint64_t kMinGradBytes = 4ull << 10;
inline constexpr std::uint64_t kMaxGradBytes = 256ull << 20;

// What --transport socket puts in every rank's environment: NCCL may then use neither direct
// GPU access (P2P over NVLink or PCIe) nor host shared memory nor InfiniBand, and falls back to
// TCP sockets, the way two nodes without InfiniBand talk (NCCL's environment documentation).
inline std::vector<std::pair<std::string, std::string>> socket_transport_environment() {
  return {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}, {"NCCL_IB_DISABLE", "1"}};
}

struct Params {
  std::optional<int> gpus;                     // default: every visible GPU, at most kMaxGpus
  std::uint64_t copy_size = 64ull << 20;       // one peer copy
  int layers = 8;                              // layers of the simulated backward pass
  std::uint64_t grad_size = 16ull << 20;       // gradient bytes per layer, all-reduced
  int layer_us = 100;                          // compute time of one layer's kernel
  std::optional<int> ranks;                    // --ranks N: start N processes here, one per GPU
  std::string transport = "auto";              // auto: NCCL picks; socket: TCP sockets only
};

// The GPUs this lesson measures on, for the queue: --gpus N, or every visible one when unset.
inline std::optional<int> gpus_of(const Params& p) { return p.gpus; }

// One process per GPU (common/lesson/lesson.hpp): this lesson runs as ranks under a launcher,
// starts --ranks N of them itself, and gives them the socket transport's environment.
inline bool accepts_ranks(const Params&) { return true; }
inline int ranks_of(const Params& p) { return p.ranks.value_or(0); }
inline std::vector<std::pair<std::string, std::string>> rank_environment_of(const Params& p) {
  return p.transport == "socket" ? socket_transport_environment() : std::vector<std::pair<std::string, std::string>>{};
}

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          .optional_integer("gpus", &Params::gpus, kMinGpus, kMaxGpus, "all (up to 8)",
                            "how many GPUs to use (the first N devices)")
          // At least 1 MiB: below that a copy measures its launch, not the link.
          .size("copy-size", &Params::copy_size, 1ull << 20, 1ull << 30, "bytes of one peer copy")
          .integer("layers", &Params::layers, 2, 32, "layers in the simulated backward pass")
          .size("grad-size", &Params::grad_size, kMinGradBytes, kMaxGradBytes, "gradient bytes per layer (all-reduced)")
          // Whole waves of 20 us blocks, so at least one wave.
          .integer("layer-us", &Params::layer_us, 20, 5000, "compute time of one layer's kernel, in us")
          .optional_integer("ranks", &Params::ranks, kMinGpus, kMaxGpus, "none",
                            "start N processes on this host, one per GPU, as torchrun does")
          .choice("transport", &Params::transport, {"auto", "socket"},
                  "NCCL's transport: auto (NCCL picks), or socket (TCP, as between nodes)");
  return table;
}

}  // namespace cudalab::multi_gpu
