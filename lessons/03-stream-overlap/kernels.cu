#include <algorithm>

#include "kernels.hpp"
#include "common/gpu/cuda_check.hpp"

namespace cudalab::stream_overlap {

namespace {

constexpr std::uint32_t kMultiplier = 1664525u;
constexpr std::uint32_t kIncrement = 1013904223u;

__global__ void affine_steps(std::uint8_t* data, std::size_t count, int iters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
    std::uint32_t x = data[i];
    for (int k = 0; k < iters; ++k) x = x * kMultiplier + kIncrement;
    data[i] = static_cast<std::uint8_t>(x);
  }
}

}  // namespace

void launch_affine_steps(std::uint8_t* data, std::size_t count, int iters, cudaStream_t stream) {
  if (count == 0) return;
  constexpr unsigned kThreads = 256;
  // Enough blocks to fill any current GPU several times over; the grid-stride loop does the rest.
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((count + kThreads - 1) / kThreads, 1u << 16));
  affine_steps<<<blocks, kThreads, 0, stream>>>(data, count, iters);
  CUDALAB_CHECK_LAUNCH();
}

void affine_steps_table(int iters, std::uint8_t table[256]) {
  for (std::uint32_t v = 0; v < 256; ++v) {
    std::uint32_t x = v;
    for (int k = 0; k < iters; ++k) x = x * kMultiplier + kIncrement;
    table[v] = static_cast<std::uint8_t>(x);
  }
}

}  // namespace cudalab::stream_overlap
