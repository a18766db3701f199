#include "common/gpu/gpu_turns.hpp"

#include <cuda_runtime.h>

#include "common/core/errors.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/device.hpp"

namespace cudalab {

std::string queue_name_of_device(int index) {
  const int count = device_count();
  if (index < 0 || index >= count) {
    throw WaivedError(msg("--device {index}: no such CUDA device; this machine has {count} (0 to {last})",
                          arg("index", index), arg("count", count), arg("last", count - 1)));
  }
  cudaDeviceProp prop{};
  CUDALAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  unsigned char bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(prop.uuid.bytes[i]);
  return gpu_uuid_text(bytes);
}

std::string pci_bus_id_of_device(int index) {
  char bus_id[32] = {};
  CUDALAB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, index));
  return bus_id;
}

std::vector<std::string> queue_names_of_devices() {
  std::vector<std::string> names;
  for (int i = 0, count = device_count(); i < count; ++i) names.push_back(queue_name_of_device(i));
  return names;
}

int least_busy_device() { return static_cast<int>(shortest_queue(queue_names_of_devices())); }

}  // namespace cudalab
