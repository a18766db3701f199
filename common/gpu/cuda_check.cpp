#include "common/gpu/cuda_check.hpp"

#include <cstdio>

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
  const Message what = msg("{error} ({description}) in `{call}` at {file}:{line}",
                           arg("error", std::string(cudaGetErrorName(err))),
                           arg("description", std::string(cudaGetErrorString(err))), arg("call", std::string(call)),
                           arg("file", std::string(file)), arg("line", line));
  if (is_no_device_error(err)) throw WaivedError(what);
  if (err == cudaErrorMemoryAllocation) throw RuntimeError(msg("out of device memory: {what}", arg("what", what)));
  throw RuntimeError(what);
}

void report_cuda_error_noexcept(cudaError_t err, const char* call, const char* file,
                                int line) noexcept {
  std::fprintf(stderr, "cudalab: warning: %s (%s) in `%s` at %s:%d\n", cudaGetErrorName(err),
               cudaGetErrorString(err), call, file, line);
}

}  // namespace cudalab::detail
