#pragma once

#include <cstddef>
#include <cstdint>

namespace cudalab {

// The smallest honest experiment: a kernel fills out[i] = i * 2654435761 (a multiplicative hash)
// on the current device and the host checks every element. Returns how many were right. Lesson 01
// uses it to prove the binary has code for the GPU; lesson 06 to show the device still works
// after deliberate errors.
std::size_t run_smoke_kernel(std::size_t count);

}  // namespace cudalab
