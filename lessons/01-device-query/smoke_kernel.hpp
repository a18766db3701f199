#pragma once

#include <cstddef>
#include <cstdint>

namespace cudalab::device_query {

// Fills out[i] = i * 2654435761 (a multiplicative hash) on the current device and checks every
// element on the host. Returns how many elements were right.
std::size_t run_smoke_kernel(std::size_t count);

}  // namespace cudalab::device_query
