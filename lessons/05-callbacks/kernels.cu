#include "kernels.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/globaltimer.cuh"

namespace cudalab::callbacks {

namespace {

constexpr int kThreads = 256;

__global__ void clock_echo(const volatile std::uint32_t* request, volatile std::uint32_t* reply, std::int64_t* gpu_ns,
                           int rounds, std::uint64_t timeout_ns) {
  for (int r = 1; r <= rounds; ++r) {
    const std::uint64_t give_up = global_time_ns() + timeout_ns;
    while (*request != static_cast<std::uint32_t>(r)) {
      if (global_time_ns() > give_up) return;
    }
    gpu_ns[r - 1] = static_cast<std::int64_t>(global_time_ns());
    __threadfence_system();
    *reply = static_cast<std::uint32_t>(r);
    __threadfence_system();
  }
}

__global__ void stamped_fill(std::uint32_t* out, int count, std::uint32_t seed, std::int64_t* end_ns) {
  for (int i = threadIdx.x; i < count; i += blockDim.x) out[i] = ordered_value(static_cast<std::uint32_t>(i), seed);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *end_ns = static_cast<std::int64_t>(global_time_ns());
  }
}

__global__ void timed_spin(std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns) {
  *start_ns = static_cast<std::int64_t>(global_time_ns());
  spin_for_ns(duration_ns);
  *end_ns = static_cast<std::int64_t>(global_time_ns());
}

__global__ void batch_kernel(const std::uint32_t* in, std::uint32_t* out, int count, std::uint64_t spin_ns) {
  if (blockIdx.x == 0 && threadIdx.x == 0) spin_for_ns(spin_ns);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = batch_transform(in[i]);
}

}  // namespace

void launch_clock_echo(cudaStream_t stream, const volatile std::uint32_t* request, volatile std::uint32_t* reply,
                       std::int64_t* gpu_ns, int rounds, std::uint64_t timeout_ns) {
  clock_echo<<<1, 1, 0, stream>>>(request, reply, gpu_ns, rounds, timeout_ns);
  CUDALAB_CHECK_LAUNCH();
}

void launch_stamped_fill(cudaStream_t stream, std::uint32_t* out, int count, std::uint32_t seed,
                         std::int64_t* end_ns) {
  stamped_fill<<<1, kThreads, 0, stream>>>(out, count, seed, end_ns);
  CUDALAB_CHECK_LAUNCH();
}

void launch_timed_spin(cudaStream_t stream, std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns) {
  timed_spin<<<1, 1, 0, stream>>>(duration_ns, start_ns, end_ns);
  CUDALAB_CHECK_LAUNCH();
}

void launch_batch(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, int count, std::uint64_t spin_ns) {
  const int blocks = (count + kThreads - 1) / kThreads;
  batch_kernel<<<blocks, kThreads, 0, stream>>>(in, out, count, spin_ns);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::callbacks
