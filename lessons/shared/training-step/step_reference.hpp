// The training step's data and its CPU reference (pure): deterministic weights and inputs, and what
// the whole step must produce. The layer's arithmetic is shared with the kernels
// (training_step.cu), so both sides compute the same bits.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/core/host_device.hpp"

namespace cudalab::graphs {

inline constexpr std::uint32_t kLayerSalt = 2654435761u;

// The layer both sides compute: y = mix(W x + salt * layer), all in uint32 (wraps mod 2^32),
// so the GPU matches the CPU exactly whatever the summation order.
CUDALAB_HOST_DEVICE inline std::uint32_t finish_layer(std::uint32_t acc) { return acc ^ (acc >> 13); }

std::vector<std::uint32_t> make_weights(int size);
std::vector<std::uint32_t> make_inputs(int batches, int size, std::uint32_t seed);

// Every batch through `layers` layers (batch-major). Batches are independent, so they are
// computed on several host threads at once: 8 batches of 10 layers at 2048 features are 335
// million multiply-adds, about 0.3 s on one core of the lab machine, all of it inside the
// GPU turn.
std::vector<std::uint32_t> cpu_reference(const std::vector<std::uint32_t>& weights,
                                         const std::vector<std::uint32_t>& inputs, int batches, int layers, int size);

// cpu_reference of make_weights(size) and make_inputs(batches, size, seed), computed once per
// process for each shape and seed: the filling kernels' case and a repeated live run ask for
// the same result again.
std::shared_ptr<const std::vector<std::uint32_t>> step_reference(int batches, int layers, int size,
                                                                 std::uint32_t seed);

}  // namespace cudalab::graphs
