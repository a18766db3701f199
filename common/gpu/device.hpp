// What the bench knows about a GPU: properties lessons depend on, read through the runtime
// (cudaDeviceGetAttribute for fields CUDA 13 removed from cudaDeviceProp) and, where the
// driver's NVML library can be loaded at run time, the PCIe link.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/gpu/nvml.hpp"
#include "common/core/device_facts.hpp"
#include "common/core/message.hpp"

namespace cudalab {

// Number of CUDA devices; throws WaivedError("no CUDA device found: ...") when there are none
// or the driver is missing or too old.
int device_count();

// Checks `index` against the device count (WaivedError when out of range), makes it current.
void use_device(int index);

// Ends this process's work on the GPUs it used: each one's primary context is destroyed, with the
// memory, pinned host buffers and streams it still held. Called before a turn is given back, so
// that tearing the context down (which a process otherwise does as it exits) never falls into
// the next student's measurement. `devices` are CUDA indices the lesson measured on.
void release_devices(const std::vector<int>& devices);

DeviceInfo query_device(int index);

// "sm_90": the architecture nvcc builds machine code for, asked of the driver without a context
// (a student compiling an exercise must not show up on a GPU while another student measures).
// Throws WaivedError when there is no such device.
std::string architecture_of_device(int index);

// Blocks of `kernel` (a __global__ function's address) at `threads_per_block` that one SM of the
// current device holds at once (the occupancy API); times the SM count, what the GPU runs side by
// side. Asking loads the kernel, like its first launch.
int blocks_per_sm(const void* kernel, int threads_per_block);

// Driver and runtime versions as "13.0".
std::string driver_version();
std::string runtime_version();

// Peer access matrix: can_access[i][j] is true when device i can map device j's memory.
std::vector<std::vector<bool>> peer_access_matrix(int count);

// Refuses, before a lesson allocates anything, a request the current device cannot hold:
// UsageError "<request> needs X GiB of device memory (<what>) but device N has only Y GiB free
// of Z GiB". `request` names the flag and value, e.g. "--size 900GiB"; `what` says in words what
// the memory holds.
void require_device_memory(const std::string& request, std::uint64_t needed_bytes, const Message& what);


}  // namespace cudalab
