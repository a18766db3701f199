#include <algorithm>

#include "common/gpu/cuda_check.hpp"
#include "kernels.hpp"

namespace cudalab::unified_memory {

namespace {

constexpr unsigned kThreads = 256;
// Enough blocks to fill any current GPU many times over, and to keep many reads in flight when
// they cross the bus; the grid-stride loops do the rest.
constexpr std::size_t kMaxBlocks = 1u << 16;

unsigned blocks_for(std::size_t threads) {
  return static_cast<unsigned>(std::clamp<std::size_t>((threads + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

__global__ void reuse_kernel(const Word* in, Word* out, std::size_t n, std::size_t begin, std::size_t end, int reuse) {
  const std::size_t step = reuse_step(n, reuse);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = begin + blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < end; i += stride) {
    Word sum = 0;
    std::size_t j = i;
    for (int k = 0; k < reuse; ++k) {
      sum += in[j];
      j += step;
      if (j >= n) j -= n;
    }
    out[i] = finish(sum);
  }
}

__global__ void sparse_kernel(const Word* in, Word* out, std::size_t reads, int sparse) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t total = reads * kLineWords;
  for (std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; t < total; t += stride) {
    const std::size_t r = t / kLineWords;
    const std::size_t word = t % kLineWords;
    out[t] = finish(in[sparse_line(r, sparse) * kLineWords + word]);
  }
}

}  // namespace

void launch_reuse(const Word* in, Word* out, std::size_t n, std::size_t begin, std::size_t end, int reuse,
                  cudaStream_t stream) {
  if (end <= begin) return;
  reuse_kernel<<<blocks_for(end - begin), kThreads, 0, stream>>>(in, out, n, begin, end, reuse);
  CUDALAB_CHECK_LAUNCH();
}

void launch_sparse(const Word* in, Word* out, std::size_t reads, int sparse, cudaStream_t stream) {
  if (reads == 0) return;
  sparse_kernel<<<blocks_for(reads * kLineWords), kThreads, 0, stream>>>(in, out, reads, sparse);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::unified_memory
