// What the engine model predicts for one "training step" (B batches, each H2D -> L kernels ->
// D2H) under the four ways lessons 06 and 07 run it. Pure C++: the lessons feed it primitives
// measured in the same run; the unit tests feed it made-up ones.
#pragma once

#include <map>
#include <vector>

#include "common/model/engine_model.hpp"
#include "common/model/graph_shape.hpp"

namespace cudalab::graphs {

enum class StepMethod {
  synchronous,      // every op, then a host sync, one stream
  multi_stream,     // batches spread over S streams, launched one op at a time
  graph_serial,     // one batch captured on one stream, its graph launched B times on that stream
  graph_fork_join,  // the whole step captured with fork/join over S streams, launched once
};

// Which layer kernel a step runs. small: one thread per output, so a 2048-wide layer is 16 blocks
// and several kernels fit on the GPU at once. fill: the same layer split over its inputs into
// enough blocks to take every resident slot of every SM, so one kernel leaves no room for another.
enum class LayerKernel { small, fill };

// How much of the GPU one layer kernel takes: its launch shape against what the device holds.
struct KernelFootprint {
  int blocks = 0;             // blocks per layer kernel
  int threads_per_block = 0;
  int resident_blocks = 0;    // blocks of this kernel all SMs hold at once (occupancy API x SMs)
};

struct StepPrimitives {
  double h2d_us = 0;               // one batch's input copy
  double kernel_us = 0;            // one layer kernel
  double d2h_us = 0;               // one batch's output copy
  double stream_launch_us = 0;     // host cost of one op launched from a stream
  double graph_node_us = 0;        // cost of one node inside a launched graph
  int copy_engines = 2;
  int max_concurrent_kernels = 32;  // kernels the device runs at once (its limit; 1 for filling kernels)
  int hardware_queues = kDefaultHardwareQueues;  // CUDA_DEVICE_MAX_CONNECTIONS
};

struct StepShape {
  int batches = 8;
  int layers = 10;
  int streams = 4;
};

// Ops of one batch, each a launch from a stream or a node of a graph: its H2D, its layer kernels,
// its D2H.
inline int ops_per_batch(const StepShape& shape) { return shape.layers + 2; }

// Predicted time of one step, in microseconds.
double predict_step_us(StepMethod method, const StepShape& shape, const StepPrimitives& p);
std::map<StepMethod, double> predict_methods(const std::vector<StepMethod>& methods, const StepShape& shape,
                                             const StepPrimitives& p);

// What the fork/join DAG of this workload must look like: S chains of ceil(B/S) batches.
DagShape expected_fork_join_shape(const StepShape& shape);

const char* method_name(StepMethod method);

}  // namespace cudalab::graphs
