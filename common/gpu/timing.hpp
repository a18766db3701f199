// How every lesson times GPU work on a stream: warm up, repeat, keep every sample (the report shows
// the median with min/max and the JSON keeps them all). Times come from CUDA events.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

#include "common/core/repetitions.hpp"
#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

// How a timed run reaches the GPU. as_enqueued: the GPU starts while the host still enqueues, so a
// slow launch call lands in the figure (right when the launch cost is what is measured).
// behind_latch: everything is enqueued behind a LaunchLatch and starts at once, so a copy's
// bandwidth is the copy alone; only for work whose enqueue never waits for the GPU (pinned and
// device memory, kernels), never for pageable copies. Under CUDA_LAUNCH_BLOCKING=1 a latch
// cannot work (its own launch would wait for it), and the run goes as_enqueued.
enum class Launch { as_enqueued, behind_latch };

// Runs `enqueue(stream)` warmup + repeat times; each timed run is bracketed by events on
// `stream`, so enqueue must put all its work on `stream` or join its other streams back into
// it. Returns the repeat samples in milliseconds.
std::vector<double> time_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue,
                                   Launch launch = Launch::as_enqueued);

// One timed run, no warm-up: for work that is only itself once (a cold first run, a copy into a
// buffer nobody has written yet), and for each side of a pair below.
double time_once_on_stream(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue);

// Two pieces of work timed in turns, A then B, warmup + repeat times: sample i of A and sample i
// of B ran a few milliseconds apart. Their ratio, sample by sample, is what a slow drift of the
// machine (clocks, a neighbour on the PCIe bus of a shared server) cannot move: it slows both
// sides of a pair alike, where timing all of A and then all of B would let it land on one side.
// The pairs come in steady blocks (repetitions.hpp, pairs_in_steady_blocks).
PairedSamples time_pairs_on_stream(cudaStream_t stream, const Repetitions& reps,
                                   const std::function<void(cudaStream_t)>& enqueue_a,
                                   const std::function<void(cudaStream_t)>& enqueue_b);

}  // namespace cudalab
