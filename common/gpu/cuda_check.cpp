#include "common/gpu/cuda_check.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace cudalab::detail {

bool is_no_device_error(cudaError_t err) {
  switch (err) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorNoKernelImageForDevice:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // Clear a sticky-free error so the process can keep using the device (e.g. after a
  // deliberately provoked graph-capture error in lesson 06).
  (void)cudaGetLastError();
  const std::string what = fmt::format("{} ({}) in `{}` at {}:{}", cudaGetErrorName(err),
                                       cudaGetErrorString(err), call, file, line);
  if (is_no_device_error(err)) throw WaivedError(what);
  if (err == cudaErrorMemoryAllocation) throw RuntimeError("out of device memory: " + what);
  throw RuntimeError(what);
}

void report_cuda_error_noexcept(cudaError_t err, const char* call, const char* file,
                                int line) noexcept {
  std::fprintf(stderr, "cudalab: warning: %s (%s) in `%s` at %s:%d\n", cudaGetErrorName(err),
               cudaGetErrorString(err), call, file, line);
}

}  // namespace cudalab::detail
