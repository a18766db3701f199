// Lesson 04's kernels as the host sees them: block shapes and the values each writes, for the CPU
// reference and the report (no CUDA here; the launch wrappers are in kernels.hpp).
#pragma once

#include <cstdint>

#include "common/core/host_device.hpp"

namespace cudalab::priority {

constexpr int kBackgroundThreads = 256;
constexpr int kUrgentThreads = 256;

// The values each kernel writes, so the host can check every element.
CUDALAB_HOST_DEVICE inline std::uint32_t background_value(std::uint32_t i) { return i * 2654435761u + 1u; }
CUDALAB_HOST_DEVICE inline std::uint32_t urgent_value(std::uint32_t i) { return (i ^ 0x5bd1e995u) * 40503u; }

// The lecture's priority demo (lecture 002) runs its sin/cos kernel (lessons/shared/lecture-kernel)
// over this many elements.
constexpr int kLectureElements = 1 << 20;

}  // namespace cudalab::priority
