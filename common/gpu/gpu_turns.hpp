// The GPU queue (common/queue/gpu_queue.hpp) names a GPU by its UUID. These read it through CUDA
// without creating a context (cudaGetDeviceProperties needs none, unlike cudaSetDevice since
// CUDA 12), so a student queues before touching the GPU and NVML does not list a waiting student.
#pragma once

#include <string>
#include <vector>

namespace cudalab {

// "GPU-8f0e1c2a-...": CUDA device `index`'s name in the queue. WaivedError when there is no such
// device.
std::string queue_name_of_device(int index);

// The PCI bus id of CUDA device `index` ("00000000:18:00.0"), asked without making a CUDA
// context: a student still waiting for a turn must hold none (query_device makes one).
std::string pci_bus_id_of_device(int index);

// The queue names of every CUDA device, in CUDA's order.
std::vector<std::string> queue_names_of_devices();

// --device auto: the CUDA device whose queue is shortest (the first of equals).
int least_busy_device();

}  // namespace cudalab
