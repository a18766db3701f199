#include "common/gpu/cuda_check.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/globaltimer.cuh"
#include "kernels.hpp"

namespace cudalab::priority {

namespace {

__global__ void background_kernel(std::uint32_t* out, std::uint64_t block_ns, volatile int* started_flag) {
  // Only block 0 reports in, and it only writes: a read of mapped host memory crosses PCIe, and
  // one such read per block (measured on the H100) serialised block starts to ~1 us each and
  // stretched every 100 us wave to a millisecond.
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *started_flag = 1;
    __threadfence_system();
  }
  spin_for_ns(block_ns);
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = background_value(i);
}

__global__ void urgent_kernel(std::uint32_t* out) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = urgent_value(i);
}

}  // namespace

int background_blocks_per_sm() {
  return blocks_per_sm(reinterpret_cast<const void*>(&background_kernel), kBackgroundThreads);
}

void launch_background(cudaStream_t stream, std::uint32_t* out, int blocks, std::uint64_t block_ns,
                       int* started_flag) {
  background_kernel<<<blocks, kBackgroundThreads, 0, stream>>>(out, block_ns, started_flag);
  CUDALAB_CHECK_LAUNCH();
}

void launch_urgent(cudaStream_t stream, std::uint32_t* out, int blocks) {
  urgent_kernel<<<blocks, kUrgentThreads, 0, stream>>>(out);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::priority
