// Launch wrappers for lesson 11's two kernels; every launch is checked. The same kernels run on
// device, managed and mapped host memory alike: only the pointers differ.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "workload.hpp"

namespace cudalab::unified_memory {

// out[i] for i in [begin, end): the sum of in[(i + k * reuse_step(n, reuse)) mod n], k < reuse,
// through finish(). With reuse 1 it reads in[i] only, so a chunk reads only its own input.
void launch_reuse(const Word* in, Word* out, std::size_t n, std::size_t begin, std::size_t end, int reuse,
                  cudaStream_t stream);

// The sparse read: for each of `reads` lines, one warp reads line sparse_line(r, sparse) of `in`
// and writes its kLineWords words through finish() to out[r * kLineWords ...].
void launch_sparse(const Word* in, Word* out, std::size_t reads, int sparse, cudaStream_t stream);

}  // namespace cudalab::unified_memory
