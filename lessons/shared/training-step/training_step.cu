// Kernels of the graph lessons and the thin wrappers that launch them or put them in graphs.
#include <cstring>

#include "training_step.hpp"

#include "common/gpu/device.hpp"

namespace cudalab::graphs {

namespace {

constexpr unsigned kThreads = 128;

// W is stored column-major (W[j * size + i]) so neighbouring threads read neighbouring words.
__global__ void layer_kernel(const std::uint32_t* weights, const std::uint32_t* x, std::uint32_t* y, int size,
                             std::uint32_t layer) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= size) return;
  std::uint32_t acc = layer * kLayerSalt;
  for (int j = 0; j < size; ++j) acc += weights[static_cast<std::size_t>(j) * size + i] * x[j];
  y[i] = finish_layer(acc);
}

// The filling kernel's block: 32 outputs (one warp reads 32 neighbouring words of a column of W)
// times 8 lanes that share out the block's slice of the inputs j: 256 threads.
constexpr unsigned kFillOutputs = 32;
constexpr unsigned kFillLanes = 8;

// The same layer as layer_kernel, split over the inputs j (split-K) so one layer fills every SM.
// Block (tile, slice) sums W[j][i] x[j] over its slice of j for its 32 outputs i and adds the sums
// into `sums` with atomicAdd: uint32 addition wraps, so any order of the slices gives the same bits
// as the CPU. The last block of a tile to finish (a counter per tile, the threadFenceReduction
// pattern) finishes the outputs and leaves `sums` and its counter at 0 for the next layer.
__global__ void __launch_bounds__(kFillOutputs* kFillLanes)
    fill_layer_kernel(const std::uint32_t* weights, const std::uint32_t* x, std::uint32_t* y, int size,
                      std::uint32_t layer, std::uint32_t* sums, unsigned* tiles_done, int slice) {
  __shared__ std::uint32_t partial[kFillLanes][kFillOutputs];
  __shared__ bool last_of_tile;
  const int i = static_cast<int>(blockIdx.x * kFillOutputs + threadIdx.x);
  const int j_end = min(size, static_cast<int>(blockIdx.y + 1) * slice);
  std::uint32_t acc = 0;
  if (i < size) {
    for (int j = static_cast<int>(blockIdx.y) * slice + static_cast<int>(threadIdx.y); j < j_end; j += kFillLanes) {
      acc += weights[static_cast<std::size_t>(j) * size + i] * x[j];
    }
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && i < size) {
    std::uint32_t sum = 0;
    for (unsigned lane = 0; lane < kFillLanes; ++lane) sum += partial[lane][threadIdx.x];
    atomicAdd(&sums[i], sum);
    __threadfence();  // this block's sums reach every SM before its tile's counter moves
  }
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    last_of_tile = atomicAdd(&tiles_done[blockIdx.x], 1u) == gridDim.y - 1;
    __threadfence();  // and the last block reads the sums only after it has seen the count
  }
  __syncthreads();
  if (!last_of_tile || threadIdx.y != 0) return;
  // atomicExch reads the sum where the atomics made it (L2) and leaves 0 for the next layer.
  if (i < size) y[i] = finish_layer(layer * kLayerSalt + atomicExch(&sums[i], 0u));
  if (threadIdx.x == 0) tiles_done[blockIdx.x] = 0;  // every block of the tile has counted
}

__global__ void empty_kernel() {}

unsigned blocks_for(int size) { return (static_cast<unsigned>(size) + kThreads - 1) / kThreads; }
unsigned fill_tiles_for(int size) { return (static_cast<unsigned>(size) + kFillOutputs - 1) / kFillOutputs; }

// Blocks of `kernel` (at `threads` per block) the whole current device holds at once.
int resident_blocks(const void* kernel, int threads) {
  int device = 0, sms = 0;
  CUDALAB_CUDA_CHECK(cudaGetDevice(&device));
  CUDALAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms * blocks_per_sm(kernel, threads);
}

// Slices per tile: at least enough blocks to take every resident slot, and among up to four
// times that, the count whose last wave is fullest (1088 blocks on 1056 slots would leave a second
// wave of 32 blocks, an almost idle GPU another stream's kernel could use; 2112 is two full waves).
int fill_slices_for(int size, int resident) {
  const int tiles = static_cast<int>(fill_tiles_for(size));
  const int most = std::max(1, size / static_cast<int>(kFillLanes));  // every lane keeps an input
  const int fewest = std::min(most, (resident + tiles - 1) / tiles);
  int best = fewest;
  double best_idle = 2.0;
  for (int k = fewest; k <= std::min(most, 4 * fewest); ++k) {
    const int blocks = tiles * k;
    const int waves = (blocks + resident - 1) / resident;
    const double idle = static_cast<double>(waves) * resident / blocks - 1.0;  // unused slots of the last wave
    if (idle < best_idle - 1e-9) {
      best = k;
      best_idle = idle;
    }
  }
  return best;
}

}  // namespace

TrainingStep::TrainingStep(const StepShape& shape, int size, std::uint32_t input_seed, LayerKernel kernel)
    : shape_(shape),
      size_(size),
      kernel_(kernel),
      weights_(static_cast<std::size_t>(size) * size),
      activations_(2 * static_cast<std::size_t>(shape.batches) * size),
      inputs_(static_cast<std::size_t>(shape.batches) * size),
      outputs_(static_cast<std::size_t>(shape.batches) * size) {
  if (kernel_ == LayerKernel::fill) {
    fill_slices_ = fill_slices_for(size, resident_blocks(reinterpret_cast<const void*>(&fill_layer_kernel),
                                                         static_cast<int>(kFillOutputs * kFillLanes)));
    fill_sums_ = DeviceBuffer<std::uint32_t>(static_cast<std::size_t>(shape.batches) * size);
    fill_tiles_done_ = DeviceBuffer<unsigned>(static_cast<std::size_t>(shape.batches) * fill_tiles_for(size));
    // The kernels expect zeros and leave zeros behind, so this is the only reset they need.
    CUDALAB_CUDA_CHECK(cudaMemset(fill_sums_.data(), 0, fill_sums_.bytes()));
    CUDALAB_CUDA_CHECK(cudaMemset(fill_tiles_done_.data(), 0, fill_tiles_done_.bytes()));
  }
  const auto w = make_weights(size);
  const auto in = make_inputs(shape.batches, size, input_seed);
  expected_ = step_reference(shape.batches, shape.layers, size, input_seed);
  std::memcpy(inputs_.data(), in.data(), inputs_.bytes());
  CUDALAB_CUDA_CHECK(cudaMemcpy(weights_.data(), w.data(), weights_.bytes(), cudaMemcpyHostToDevice));
  CUDALAB_CUDA_CHECK(cudaMemset(activations_.data(), 0xFF, activations_.bytes()));
  // The setup above ran on the legacy stream, which the steps' non-blocking streams do not wait
  // for: finish it before any step is enqueued (a busy GPU can delay it past their first kernels).
  CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  poison_outputs();
}

const std::uint32_t* TrainingStep::host_input(int batch) const {
  return inputs_.data() + static_cast<std::size_t>(batch) * size_;
}
std::uint32_t* TrainingStep::host_output(int batch) const {
  return outputs_.data() + static_cast<std::size_t>(batch) * size_;
}
std::uint32_t* TrainingStep::activation(int batch, int parity) const {
  return activations_.data() + (2 * static_cast<std::size_t>(batch) + static_cast<std::size_t>(parity)) * size_;
}

void TrainingStep::enqueue_h2d(int batch, cudaStream_t stream) const {
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(activation(batch, 0), host_input(batch), static_cast<std::size_t>(size_) * sizeof(std::uint32_t),
                                     cudaMemcpyHostToDevice, stream));
}

KernelFootprint TrainingStep::footprint() const {
  if (kernel_ == LayerKernel::fill) {
    const int threads = static_cast<int>(kFillOutputs * kFillLanes);
    return {static_cast<int>(fill_tiles_for(size_)) * fill_slices_, threads,
            resident_blocks(reinterpret_cast<const void*>(&fill_layer_kernel), threads)};
  }
  const int threads = static_cast<int>(kThreads);
  return {static_cast<int>(blocks_for(size_)), threads, resident_blocks(reinterpret_cast<const void*>(&layer_kernel), threads)};
}

cudaKernelNodeParams TrainingStep::layer_node(int batch, int layer, LayerNodeArgs& a) const {
  a = LayerNodeArgs{weights_.data(), activation(batch, layer % 2), activation(batch, (layer + 1) % 2), size_,
                    static_cast<std::uint32_t>(layer)};
  a.pointers[0] = &a.weights;
  a.pointers[1] = &a.x;
  a.pointers[2] = &a.y;
  a.pointers[3] = &a.size;
  a.pointers[4] = &a.layer;
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&layer_kernel);
  p.gridDim = dim3(blocks_for(size_));
  p.blockDim = dim3(kThreads);
  if (kernel_ == LayerKernel::fill) {
    a.sums = fill_sums_.data() + static_cast<std::size_t>(batch) * size_;
    a.tiles_done = fill_tiles_done_.data() + static_cast<std::size_t>(batch) * fill_tiles_for(size_);
    a.slice = (size_ + fill_slices_ - 1) / fill_slices_;
    a.pointers[5] = &a.sums;
    a.pointers[6] = &a.tiles_done;
    a.pointers[7] = &a.slice;
    p.func = reinterpret_cast<void*>(&fill_layer_kernel);
    p.gridDim = dim3(fill_tiles_for(size_), static_cast<unsigned>(fill_slices_));
    p.blockDim = dim3(kFillOutputs, kFillLanes);
  }
  p.sharedMemBytes = 0;
  p.kernelParams = a.pointers;
  p.extra = nullptr;
  return p;
}

void TrainingStep::enqueue_layer(int batch, int layer, cudaStream_t stream) const {
  // Launched with the node's parameters, so a stream and a graph run exactly the same kernel.
  LayerNodeArgs args;
  const cudaKernelNodeParams p = layer_node(batch, layer, args);
  CUDALAB_CUDA_CHECK(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, stream));
}

void TrainingStep::enqueue_d2h(int batch, cudaStream_t stream) const {
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(host_output(batch), final_activation(batch),
                                     static_cast<std::size_t>(size_) * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, stream));
}

void TrainingStep::enqueue_batch(int batch, cudaStream_t stream) const {
  enqueue_h2d(batch, stream);
  for (int l = 0; l < shape_.layers; ++l) enqueue_layer(batch, l, stream);
  enqueue_d2h(batch, stream);
}

void TrainingStep::run_batch_synchronously(int batch, cudaStream_t stream) const {
  enqueue_h2d(batch, stream);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (int l = 0; l < shape_.layers; ++l) {
    enqueue_layer(batch, l, stream);
    CUDALAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  enqueue_d2h(batch, stream);
  CUDALAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}
void TrainingStep::poison_outputs() const { std::memset(outputs_.data(), 0xFF, outputs_.bytes()); }

std::size_t TrainingStep::count_correct() const {
  std::size_t correct = 0;
  const std::vector<std::uint32_t>& expected = *expected_;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (outputs_[k] == expected[k]) ++correct;
  }
  return correct;
}

ExplicitStepGraph build_step_graph(const TrainingStep& step) {
  const StepShape& shape = step.shape();
  const int size = step.size();
  const std::size_t bytes = static_cast<std::size_t>(size) * sizeof(std::uint32_t);
  ExplicitStepGraph built;
  built.graph = Graph::create();
  cudaGraph_t g = built.graph.get();
  for (int b = 0; b < shape.batches; ++b) {
    // Stream order in the capture: batch b follows batch b - S on the same stream.
    std::vector<cudaGraphNode_t> deps;
    if (b >= shape.streams) deps.push_back(built.d2h[static_cast<std::size_t>(b - shape.streams)]);
    cudaGraphNode_t node = nullptr;
    CUDALAB_CUDA_CHECK(cudaGraphAddMemcpyNode1D(&node, g, deps.data(), deps.size(), step.activation(b, 0),
                                                step.host_input(b), bytes, cudaMemcpyHostToDevice));
    built.h2d.push_back(node);
    for (int l = 0; l < shape.layers; ++l) {
      LayerNodeArgs args;
      const cudaKernelNodeParams params = step.layer_node(b, l, args);
      cudaGraphNode_t previous = node;
      CUDALAB_CUDA_CHECK(cudaGraphAddKernelNode(&node, g, &previous, 1, &params));
      built.kernels.push_back(node);
    }
    cudaGraphNode_t previous = node;
    CUDALAB_CUDA_CHECK(cudaGraphAddMemcpyNode1D(&node, g, &previous, 1, step.host_output(b), step.final_activation(b),
                                                bytes, cudaMemcpyDeviceToHost));
    built.d2h.push_back(node);
  }
  return built;
}

void retarget_step_exec(cudaGraphExec_t exec, const ExplicitStepGraph& built, const TrainingStep& target) {
  const StepShape& shape = target.shape();
  const int size = target.size();
  const std::size_t bytes = static_cast<std::size_t>(size) * sizeof(std::uint32_t);
  for (int b = 0; b < shape.batches; ++b) {
    CUDALAB_CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec, built.h2d[static_cast<std::size_t>(b)],
                                                          target.activation(b, 0), target.host_input(b), bytes,
                                                          cudaMemcpyHostToDevice));
    for (int l = 0; l < shape.layers; ++l) {
      LayerNodeArgs args;
      const cudaKernelNodeParams params = target.layer_node(b, l, args);
      const auto index = static_cast<std::size_t>(b) * static_cast<std::size_t>(shape.layers) + static_cast<std::size_t>(l);
      CUDALAB_CUDA_CHECK(cudaGraphExecKernelNodeSetParams(exec, built.kernels[index], &params));
    }
    CUDALAB_CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec, built.d2h[static_cast<std::size_t>(b)],
                                                          target.host_output(b), target.final_activation(b), bytes,
                                                          cudaMemcpyDeviceToHost));
  }
}

void launch_empty_kernels(int count, cudaStream_t stream) {
  for (int k = 0; k < count; ++k) {
    empty_kernel<<<1, 1, 0, stream>>>();
    CUDALAB_CHECK_LAUNCH();
  }
}

}  // namespace cudalab::graphs
