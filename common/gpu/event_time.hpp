// Time between two recorded events, on the GPU's clock, in microseconds (waits for `to`'s work
// only as cudaEventElapsedTime does: both events must have completed).
#pragma once

#include "common/gpu/cuda_check.hpp"
#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

inline double elapsed_us(const Event& from, const Event& to) {
  float ms = 0;
  CUDALAB_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return static_cast<double>(ms) * 1000.0;
}

}  // namespace cudalab
