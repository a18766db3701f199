// Error checks in the spirit of nvbench's NVBENCH_CUDA_CALL: every CUDA runtime call goes
// through CUDALAB_CUDA_CHECK, which throws with file:line, the error's name and message and the
// text of the failing call. Destructors use the _NOEXCEPT twin, which reports and carries on.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "common/core/errors.hpp"

namespace cudalab::detail {

// Throws WaivedError for "there is no usable GPU here" errors, RuntimeError for the rest.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
void report_cuda_error_noexcept(cudaError_t err, const char* call, const char* file,
                                int line) noexcept;

// True for the errors that mean "no usable device or driver" rather than "the program failed".
bool is_no_device_error(cudaError_t err);

}  // namespace cudalab::detail

#define CUDALAB_CUDA_CHECK(call)                                                  \
  do {                                                                            \
    const cudaError_t cudalab_err_ = (call);                                      \
    if (cudalab_err_ != cudaSuccess) {                                            \
      ::cudalab::detail::throw_cuda_error(cudalab_err_, #call, __FILE__, __LINE__); \
    }                                                                             \
  } while (false)

#define CUDALAB_CUDA_CHECK_NOEXCEPT(call)                                                     \
  do {                                                                                        \
    const cudaError_t cudalab_err_ = (call);                                                  \
    if (cudalab_err_ != cudaSuccess) {                                                        \
      ::cudalab::detail::report_cuda_error_noexcept(cudalab_err_, #call, __FILE__, __LINE__); \
    }                                                                                         \
  } while (false)

// After every kernel launch: a bad launch configuration is only reported by cudaGetLastError.
#define CUDALAB_CHECK_LAUNCH() CUDALAB_CUDA_CHECK(cudaGetLastError())
