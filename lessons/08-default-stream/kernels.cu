#include "common/gpu/cuda_check.hpp"
#include "common/gpu/globaltimer.cuh"
#include "kernels.hpp"

namespace cudalab::default_stream {

namespace {

__global__ void spin_then_write(std::uint32_t* out, std::uint32_t* scratch, std::uint32_t slot,
                                std::uint64_t spin_ns) {
  spin_for_ns(spin_ns);
  const std::uint32_t i = threadIdx.x;
  std::uint32_t value = slot_value(slot, i);
  if (scratch != nullptr) {  // each thread reads back only its own element: no race
    scratch[i] = value;
    value = scratch[i];
  }
  out[slot * kThreads + i] = value;
}

}  // namespace

void launch_spin_then_write(cudaStream_t stream, std::uint32_t* out, std::uint32_t* scratch, std::uint32_t slot,
                            std::uint64_t spin_ns) {
  spin_then_write<<<1, kThreads, 0, stream>>>(out, scratch, slot, spin_ns);
  CUDALAB_CHECK_LAUNCH();
}

}  // namespace cudalab::default_stream
