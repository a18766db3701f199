#include "common/gpu/cuda_check.hpp"
#include "common/gpu/device.hpp"
#include "sin_cos_kernel.hpp"

namespace cudalab::lecture {

namespace {

// Work per element grows linearly with `iterations`: 2000 iterations cost twice 1000.
__global__ void sin_cos_iterations(const float* in, float* out, int n, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int k = 0; k < iterations; ++k) x = sinf(x) + cosf(x);
  out[i] = x;
}

}  // namespace

int blocks_per_sm() { return cudalab::blocks_per_sm(reinterpret_cast<const void*>(&sin_cos_iterations), kThreads); }

void launch_sin_cos(cudaStream_t stream, const float* in, float* out, int elements, int iterations) {
  sin_cos_iterations<<<blocks_for(static_cast<std::size_t>(elements)), kThreads, 0, stream>>>(in, out, elements,
                                                                                             iterations);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::lecture
