#include "common/gpu/device.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

#include "common/gpu/cuda_check.hpp"

namespace cudalab {

namespace {

// What stands between this machine and a GPU, in the words a student can act on. The runtime's
// own error ("driver version is insufficient") reads the same with no driver at all.
Message why_no_gpu(cudaError_t err) {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (driver == nullptr) return Message("no NVIDIA driver is installed (libcuda.so.1 not found)");
  dlclose(driver);
  int driver_version = 0;
  if (cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0 && driver_version < CUDART_VERSION) {
    return msg("the NVIDIA driver supports CUDA {driver}, and this build needs CUDA {needed} or newer",
               arg("driver", fmt::format("{}.{}", driver_version / 1000, driver_version % 1000 / 10)),
               arg("needed", fmt::format("{}.{}", CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10)));
  }
  if (err == cudaErrorNoDevice || err == cudaSuccess) {
    return Message("the NVIDIA driver is installed but sees no CUDA device");
  }
  return msg("the driver cannot open a CUDA device: {description} ({error})",
             arg("description", std::string(cudaGetErrorString(err))),
             arg("error", std::string(cudaGetErrorName(err))));
}

}  // namespace

int device_count() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) (void)cudaGetLastError();
  if (err != cudaSuccess || count == 0) throw NoGpuError(why_no_gpu(err));
  return count;
}

std::string architecture_of_device(int index) {
  const int count = device_count();
  if (index < 0 || index >= count) {
    throw WaivedError(msg("--device {index}: no such CUDA device; this machine has {count} (0 to {last})",
                          arg("index", index), arg("count", count), arg("last", count - 1)));
  }
  int major = 0, minor = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index));
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index));
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

void release_devices(const std::vector<int>& devices) {
  for (const int index : devices) {
    CUDALAB_CUDA_CHECK(cudaSetDevice(index));  // the lesson measured here: it has its context
    CUDALAB_CUDA_CHECK(cudaDeviceReset());
  }
}

void use_device(int index) {
  const int count = device_count();
  if (index < 0 || index >= count) {
    throw WaivedError(msg("--device {index}: no such CUDA device; this machine has {count} (0 to {last})",
                          arg("index", index), arg("count", count), arg("last", count - 1)));
  }
  CUDALAB_CUDA_CHECK(cudaSetDevice(index));
}

namespace {
int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}
std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }
}  // namespace

int blocks_per_sm(const void* kernel, int threads_per_block) {
  int blocks = 0;
  CUDALAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block, 0));
  return blocks;
}

DeviceInfo query_device(int index) {
  cudaDeviceProp prop{};
  CUDALAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  DeviceInfo d;
  d.index = index;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.global_memory_bytes = prop.totalGlobalMem;
  d.l2_cache_bytes = prop.l2CacheSize;
  d.memory_bus_width_bits = prop.memoryBusWidth;
  d.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, index);
  d.async_engine_count = prop.asyncEngineCount;
  d.concurrent_kernels = prop.concurrentKernels != 0;
  CUDALAB_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&d.priority_least, &d.priority_greatest));
  d.can_map_host_memory = prop.canMapHostMemory != 0;
  d.pageable_memory_access = prop.pageableMemoryAccess != 0;
  d.unified_addressing = prop.unifiedAddressing != 0;
  d.kernel_exec_timeout = attribute(cudaDevAttrKernelExecTimeout, index) != 0;
  d.compute_mode = attribute(cudaDevAttrComputeMode, index);
  char bus_id[32] = {};
  CUDALAB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, index));
  d.pci_bus_id = bus_id;
  d.pcie = query_pcie_link(d.pci_bus_id);
  return d;
}

std::string driver_version() {
  int v = 0;
  CUDALAB_CUDA_CHECK(cudaDriverGetVersion(&v));
  return version_string(v);
}

std::string runtime_version() {
  int v = 0;
  CUDALAB_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  return version_string(v);
}

void require_device_memory(const std::string& request, std::uint64_t needed_bytes, const Message& what) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDALAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (needed_bytes <= free_bytes) return;
  int device = 0;
  CUDALAB_CUDA_CHECK(cudaGetDevice(&device));
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const auto in_gib = [&](double bytes) { return fmt::format("{:.2f}", bytes / gib); };
  throw UsageError(msg("{request} needs {needed} GiB of device memory ({what}) but device {device} has only {free} "
                       "GiB free of {total} GiB; choose a smaller value",
                       arg("request", request), arg("needed", in_gib(static_cast<double>(needed_bytes))),
                       arg("what", what), arg("device", device), arg("free", in_gib(static_cast<double>(free_bytes))),
                       arg("total", in_gib(static_cast<double>(total_bytes)))));
}

std::vector<std::vector<bool>> peer_access_matrix(int count) {
  std::vector<std::vector<bool>> m(static_cast<std::size_t>(count), std::vector<bool>(static_cast<std::size_t>(count), false));
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j) {
      int can = 0;
      if (i != j) CUDALAB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = (i == j) || can != 0;
    }
  }
  return m;
}

}  // namespace cudalab
