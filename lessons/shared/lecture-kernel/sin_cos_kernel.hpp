// The lecture's sin/cos kernel on the GPU (sin_cos.hpp has its inputs and CPU reference).
#pragma once

#include <cuda_runtime_api.h>

#include "sin_cos.hpp"

namespace cudalab::lecture {

// How many blocks of kThreads one SM holds at once (occupancy API): SMs x this is how many
// blocks the whole GPU runs side by side.
int blocks_per_sm();

// in[i] -> out[i] after `iterations` steps, for i < elements; blocks_for(elements) blocks.
void launch_sin_cos(cudaStream_t stream, const float* in, float* out, int elements, int iterations);

}  // namespace cudalab::lecture
