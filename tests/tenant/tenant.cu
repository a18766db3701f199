// Another user on the class's GPU, for tools/class-sim.sh and the lab-GPU checks: a process that
// is not cudalab and either holds a context and does nothing (a notebook left open), runs kernels
// (a training job), or only copies (a data loader). `watch` prints what NVML sees of every
// process on the GPU every 100 ms, which is how the tenant rule in common/gpu/preflight was
// checked against real tenants. `busy` does both kernels and copies, as the issue's busy tenant.
//   cudalab_tenant idle|kernels|copies|busy SECONDS [DEVICE]
//   cudalab_tenant watch SECONDS [DEVICE]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/core/errors.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/nvml.hpp"

namespace {

using namespace cudalab;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kBufferBytes = 64ull << 20;  // as the issue's tenants: 64 MiB

__global__ void spin(unsigned long long cycles, unsigned* sink) {
  const unsigned long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && sink != nullptr) atomicAdd(sink, 1u);
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void idle(double seconds) {
  const DeviceBuffer<unsigned char> held(kBufferBytes);
  CUDALAB_CUDA_CHECK(cudaMemset(held.data(), 0, held.bytes()));
  CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

void kernels(double seconds) {
  const DeviceBuffer<unsigned> sink(1);
  const Stream stream;
  const auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    for (int i = 0; i < 20; ++i) spin<<<132 * 4, 256, 0, stream>>>(200000, sink.data());  // ~0.1 ms each
    CUDALAB_CHECK_LAUNCH();
    stream.synchronize();
  }
}

void copies(double seconds) {
  const DeviceBuffer<unsigned char> device(kBufferBytes);
  const PinnedBuffer<unsigned char> host(kBufferBytes);
  const Stream stream;
  const auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), kBufferBytes, cudaMemcpyHostToDevice, stream));
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), kBufferBytes, cudaMemcpyDeviceToHost, stream));
    stream.synchronize();
  }
}

// Kernels on one stream and 64 MiB copies each way on another, side by side.
void busy(double seconds) {
  const DeviceBuffer<unsigned> sink(1);
  const DeviceBuffer<unsigned char> device(kBufferBytes);
  const PinnedBuffer<unsigned char> host(kBufferBytes);
  const Stream compute, copy;
  const auto start = Clock::now();
  while (seconds_since(start) < seconds) {
    for (int i = 0; i < 20; ++i) spin<<<132 * 4, 256, 0, compute>>>(200000, sink.data());
    CUDALAB_CHECK_LAUNCH();
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), kBufferBytes, cudaMemcpyHostToDevice, copy));
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), device.data(), kBufferBytes, cudaMemcpyDeviceToHost, copy));
    compute.synchronize();
    copy.synchronize();
  }
}

unsigned long long now_us() {
  return static_cast<unsigned long long>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

// One line per 100 ms: the compute pids NVML lists, then each work sample since the last line.
void watch(double seconds, const std::string& bus_id) {
  const auto start = Clock::now();
  unsigned long long since = now_us();
  while (seconds_since(start) < seconds) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string line = "t=" + std::to_string(seconds_since(start)).substr(0, 5) + " pids:";
    if (const auto pids = query_compute_pids(bus_id)) {
      for (long pid : *pids) line += " " + std::to_string(pid);
    } else {
      line += " (unknown)";
    }
    line += " work:";
    const auto work = query_process_work(bus_id, since);
    if (!work) line += " (unsupported)";
    for (const auto& w : work.value_or(std::vector<ProcessWork>{})) {
      line += " " + std::to_string(w.pid) + "[sm " + std::to_string(w.sm_percent) + " mem " +
              std::to_string(w.memory_percent) + "]";
      since = std::max(since, w.at_us);
    }
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cudalab_tenant idle|kernels|copies|busy|watch SECONDS [DEVICE]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const double seconds = std::atof(argv[2]);
  const int device = argc > 3 ? std::atoi(argv[3]) : 0;
  try {
    if (mode == "watch") {
      watch(seconds, query_device(device).pci_bus_id);
      return 0;
    }
    CUDALAB_CUDA_CHECK(cudaSetDevice(device));
    CUDALAB_CUDA_CHECK(cudaFree(nullptr));  // the context, before the tenant says it is there
    std::printf("tenant %s pid %d on device %d\n", mode.c_str(), static_cast<int>(::getpid()), device);
    std::fflush(stdout);
    if (mode == "idle") idle(seconds);
    else if (mode == "kernels") kernels(seconds);
    else if (mode == "copies") copies(seconds);
    else if (mode == "busy") busy(seconds);
    else {
      std::fprintf(stderr, "cudalab_tenant: unknown mode '%s'\n", mode.c_str());
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudalab_tenant: %s\n", e.what());
    return 3;
  }
  return 0;
}
