// Marks small functions both the host and kernels call, e.g. the value a kernel must write,
// which the host recomputes to check every element.
#pragma once

#ifdef __CUDACC__
#define CUDALAB_HOST_DEVICE __host__ __device__
#else
#define CUDALAB_HOST_DEVICE
#endif
