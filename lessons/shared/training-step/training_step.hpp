// The workload of lessons 06 and 07: a "training step" of B batches, each an H2D copy of its
// input, a chain of L layer kernels (an integer matrix-vector product, exact on the CPU too), and
// a D2H copy of its output. Host memory is pinned so copies are truly asynchronous. The layer
// kernel is small (a few SMs) or GPU-filling (every SM); both compute the same bits.
// This header is CUDA-runtime only (no kernels): the kernels live in training_step.cu.
#pragma once

#include <cstdint>
#include <vector>

#include "common/gpu/cuda_raii.hpp"
#include "step_model.hpp"
#include "step_reference.hpp"

namespace cudalab::graphs {

// A layer kernel's arguments, and the pointers to them a kernel node takes (kernelParams).
struct LayerNodeArgs {
  const std::uint32_t* weights = nullptr;
  const std::uint32_t* x = nullptr;
  std::uint32_t* y = nullptr;
  int size = 0;
  std::uint32_t layer = 0;
  std::uint32_t* sums = nullptr;       // fill only: the batch's split-K sums
  unsigned* tiles_done = nullptr;      // fill only: the batch's per-tile block counters
  int slice = 0;                       // fill only: inputs per slice
  void* pointers[8] = {};
};

class TrainingStep {
 public:
  TrainingStep(const StepShape& shape, int size, std::uint32_t input_seed, LayerKernel kernel = LayerKernel::small);

  const StepShape& shape() const { return shape_; }
  LayerKernel kernel() const { return kernel_; }
  // The layer kernel's launch shape on this device, against the blocks the GPU holds at once.
  KernelFootprint footprint() const;
  int size() const { return size_; }
  std::size_t elements() const { return static_cast<std::size_t>(shape_.batches) * static_cast<std::size_t>(size_); }
  const std::vector<std::uint32_t>& expected() const { return *expected_; }

  // Batch `batch` on `stream`: H2D, L layer kernels, D2H, all asynchronous.
  void enqueue_batch(int batch, cudaStream_t stream) const;
  // Its single ops, for timing the primitives the model needs.
  void enqueue_h2d(int batch, cudaStream_t stream) const;
  void enqueue_layer(int batch, int layer, cudaStream_t stream) const;
  void enqueue_d2h(int batch, cudaStream_t stream) const;
  // The same ops with a cudaStreamSynchronize after each one (method 1).
  void run_batch_synchronously(int batch, cudaStream_t stream) const;

  // Fills the pinned outputs with 0xFF; call only while no copy into them is in flight.
  void poison_outputs() const;
  // Elements of all batches' outputs equal to the CPU reference; call after synchronizing.
  std::size_t count_correct() const;

  // Pieces the explicit graph builder needs.
  const std::uint32_t* host_input(int batch) const;
  std::uint32_t* host_output(int batch) const;
  std::uint32_t* activation(int batch, int parity) const;  // ping-pong buffer 0 or 1
  const std::uint32_t* weights() const { return weights_.data(); }
  // The buffer a batch's result ends in after `layers` kernels.
  std::uint32_t* final_activation(int batch) const { return activation(batch, shape_.layers % 2); }
  // Layer `layer` of batch `batch` as kernel-node parameters; they point into `args`, which must
  // outlive the call that reads them (cudaGraphAddKernelNode, cudaGraphExecKernelNodeSetParams).
  cudaKernelNodeParams layer_node(int batch, int layer, LayerNodeArgs& args) const;

 private:
  StepShape shape_;
  int size_;
  LayerKernel kernel_;
  int fill_slices_ = 1;  // fill: slices of the inputs per output tile (the grid's y)
  std::shared_ptr<const std::vector<std::uint32_t>> expected_;  // step_reference: shared by equal steps
  DeviceBuffer<std::uint32_t> weights_;
  DeviceBuffer<std::uint32_t> activations_;  // 2 ping-pong buffers per batch
  PinnedBuffer<std::uint32_t> inputs_;
  PinnedBuffer<std::uint32_t> outputs_;
  // fill only, per batch (batches on different streams run at once): the split-K sums and the
  // blocks done per tile, zero between layers (each layer's last block resets what it used).
  DeviceBuffer<std::uint32_t> fill_sums_;
  DeviceBuffer<unsigned> fill_tiles_done_;
};

// The same DAG the fork/join capture makes, built node by node: batch b's chain runs after
// batch b-S's chain (they share stream b % S in the capture). Node handles are kept so an
// instantiated exec can be pointed at another TrainingStep's buffers without re-instantiating.
struct ExplicitStepGraph {
  Graph graph;
  std::vector<cudaGraphNode_t> h2d;      // per batch
  std::vector<cudaGraphNode_t> kernels;  // batch-major, layers per batch
  std::vector<cudaGraphNode_t> d2h;      // per batch
};
ExplicitStepGraph build_step_graph(const TrainingStep& step);
// cudaGraphExecKernelNodeSetParams / cudaGraphExecMemcpyNodeSetParams1D for every node, so
// `exec` (instantiated from `built`) works on `target`'s buffers. Same shape required.
void retarget_step_exec(cudaGraphExec_t exec, const ExplicitStepGraph& built, const TrainingStep& target);

// `count` empty kernels back to back on `stream` (launch-overhead experiments).
void launch_empty_kernels(int count, cudaStream_t stream);

}  // namespace cudalab::graphs
