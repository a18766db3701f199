// Lesson 10's flags: one table, read by CLI11 and by the report.
#pragma once

#include <cstdint>
#include <optional>

#include "common/lesson/flag_table.hpp"

namespace cudalab::multi_gpu {

inline constexpr int kMinGpus = 2;
inline constexpr int kMaxGpus = 8;

struct Params {
  std::optional<int> gpus;                     // default: every visible GPU, at most kMaxGpus
  std::uint64_t copy_size = 64ull << 20;       // one peer copy
  int layers = 8;                              // layers of the simulated backward pass
  std::uint64_t grad_size = 16ull << 20;       // gradient bytes per layer, all-reduced
  int layer_us = 100;                          // compute time of one layer's kernel
};

// The GPUs this lesson measures on, for the queue: --gpus N, or every visible one when unset.
inline std::optional<int> gpus_of(const Params& p) { return p.gpus; }

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table =
      FlagTable<Params>()
          .optional_integer("gpus", &Params::gpus, kMinGpus, kMaxGpus, "all (up to 8)",
                            "how many GPUs to use (the first N devices)")
          // At least 1 MiB: below that a copy measures its launch, not the link.
          .size("copy-size", &Params::copy_size, 1ull << 20, 1ull << 30, "bytes of one peer copy")
          .integer("layers", &Params::layers, 2, 32, "layers in the simulated backward pass")
          // 4 KiB at least: one NCCL chunk; 256 MiB at most keeps 32 layers within a GPU's memory.
          .size("grad-size", &Params::grad_size, 4ull << 10, 256ull << 20, "gradient bytes per layer (all-reduced)")
          // Whole waves of 20 us blocks, so at least one wave.
          .integer("layer-us", &Params::layer_us, 20, 5000, "compute time of one layer's kernel, in us");
  return table;
}

}  // namespace cudalab::multi_gpu
