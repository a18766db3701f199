#include "kernels.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/globaltimer.cuh"

namespace cudalab::events_sync {

namespace {

constexpr int kThreads = 256;

__global__ void stamped_spin(std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns,
                             volatile std::uint32_t* done_flag, std::uint32_t ticket) {
  const auto start = static_cast<std::int64_t>(global_time_ns());
  spin_for_ns(duration_ns);
  const auto end = static_cast<std::int64_t>(global_time_ns());
  if (start_ns != nullptr) *start_ns = start;
  if (end_ns != nullptr) *end_ns = end;
  if (done_flag != nullptr) {
    __threadfence_system();
    *done_flag = ticket;
    __threadfence_system();
  }
}

// Each block spins before it writes, so no element is written before spin_ns has passed,
// whichever block the GPU runs first.
__global__ void producer(std::uint32_t* data, int count, std::uint32_t seed, std::uint64_t spin_ns) {
  if (threadIdx.x == 0) spin_for_ns(spin_ns);
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] = produced_value(static_cast<std::uint32_t>(i), seed);
}

__global__ void consumer(const std::uint32_t* in, std::uint32_t* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = consumed_value(in[i]);
}

int blocks_for(int count) { return (count + kThreads - 1) / kThreads; }

}  // namespace

void launch_stamped_spin(cudaStream_t stream, std::uint64_t duration_ns, std::int64_t* start_ns, std::int64_t* end_ns,
                         volatile std::uint32_t* done_flag, std::uint32_t ticket) {
  stamped_spin<<<1, 1, 0, stream>>>(duration_ns, start_ns, end_ns, done_flag, ticket);
  CUDALAB_CHECK_LAUNCH();
}

void launch_producer(cudaStream_t stream, std::uint32_t* data, int count, std::uint32_t seed, std::uint64_t spin_ns) {
  producer<<<blocks_for(count), kThreads, 0, stream>>>(data, count, seed, spin_ns);
  CUDALAB_CHECK_LAUNCH();
}

void launch_consumer(cudaStream_t stream, const std::uint32_t* in, std::uint32_t* out, int count) {
  consumer<<<blocks_for(count), kThreads, 0, stream>>>(in, out, count);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::events_sync
