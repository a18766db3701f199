// Kernels of the graph lessons and the thin wrappers that launch them or put them in graphs.
#include <cstring>

#include "training_step.hpp"

namespace cudalab::graphs {

namespace {

constexpr unsigned kThreads = 128;
constexpr std::uint32_t kLayerSalt = 2654435761u;

// The layer both sides compute: y = mix(W x + salt * layer), all in uint32 (wraps mod 2^32),
// so the GPU matches the CPU exactly whatever the summation order.
__host__ __device__ inline std::uint32_t finish_layer(std::uint32_t acc) { return acc ^ (acc >> 13); }

// W is stored column-major (W[j * size + i]) so neighbouring threads read neighbouring words.
__global__ void layer_kernel(const std::uint32_t* weights, const std::uint32_t* x, std::uint32_t* y, int size,
                             std::uint32_t layer) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= size) return;
  std::uint32_t acc = layer * kLayerSalt;
  for (int j = 0; j < size; ++j) acc += weights[static_cast<std::size_t>(j) * size + i] * x[j];
  y[i] = finish_layer(acc);
}

__global__ void empty_kernel() {}

unsigned blocks_for(int size) { return (static_cast<unsigned>(size) + kThreads - 1) / kThreads; }

std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

cudaKernelNodeParams layer_params(void** args, int size) {
  cudaKernelNodeParams p{};
  p.func = reinterpret_cast<void*>(&layer_kernel);
  p.gridDim = dim3(blocks_for(size));
  p.blockDim = dim3(kThreads);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

}  // namespace

std::vector<std::uint32_t> make_weights(int size) {
  std::vector<std::uint32_t> w(static_cast<std::size_t>(size) * size);
  for (std::size_t k = 0; k < w.size(); ++k) w[k] = mix(static_cast<std::uint32_t>(k) + 0x9e3779b9u);
  return w;
}

std::vector<std::uint32_t> make_inputs(int batches, int size, std::uint32_t seed) {
  std::vector<std::uint32_t> in(static_cast<std::size_t>(batches) * size);
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = mix(static_cast<std::uint32_t>(k) ^ (seed * 0x85ebca6bu));
  return in;
}

std::vector<std::uint32_t> cpu_reference(const std::vector<std::uint32_t>& weights,
                                         const std::vector<std::uint32_t>& inputs, int batches, int layers,
                                         int size) {
  const auto n = static_cast<std::size_t>(size);
  std::vector<std::uint32_t> out(inputs.size());
  std::vector<std::uint32_t> x(n), y(n);
  for (int b = 0; b < batches; ++b) {
    std::copy(inputs.begin() + static_cast<std::ptrdiff_t>(b * n), inputs.begin() + static_cast<std::ptrdiff_t>((b + 1) * n), x.begin());
    for (int l = 0; l < layers; ++l) {
      for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<std::uint32_t>(l) * kLayerSalt;
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint32_t xj = x[j];
        const std::uint32_t* column = &weights[j * n];
        for (std::size_t i = 0; i < n; ++i) y[i] += column[i] * xj;
      }
      for (std::size_t i = 0; i < n; ++i) y[i] = finish_layer(y[i]);
      std::swap(x, y);
    }
    std::copy(x.begin(), x.end(), out.begin() + static_cast<std::ptrdiff_t>(b * n));
  }
  return out;
}

TrainingStep::TrainingStep(const StepShape& shape, int size, std::uint32_t input_seed)
    : shape_(shape),
      size_(size),
      weights_(static_cast<std::size_t>(size) * size),
      activations_(2 * static_cast<std::size_t>(shape.batches) * size),
      inputs_(static_cast<std::size_t>(shape.batches) * size),
      outputs_(static_cast<std::size_t>(shape.batches) * size) {
  const auto w = make_weights(size);
  const auto in = make_inputs(shape.batches, size, input_seed);
  expected_ = cpu_reference(w, in, shape.batches, shape.layers, size);
  std::memcpy(inputs_.data(), in.data(), inputs_.bytes());
  CUDALAB_CUDA_CHECK(cudaMemcpy(weights_.data(), w.data(), weights_.bytes(), cudaMemcpyHostToDevice));
  CUDALAB_CUDA_CHECK(cudaMemset(activations_.data(), 0xFF, activations_.bytes()));
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

void TrainingStep::enqueue_layer(int batch, int layer, cudaStream_t stream) const {
  layer_kernel<<<blocks_for(size_), kThreads, 0, stream>>>(weights_.data(), activation(batch, layer % 2),
                                                            activation(batch, (layer + 1) % 2), size_,
                                                            static_cast<std::uint32_t>(layer));
  CUDALAB_CHECK_LAUNCH();
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
  for (std::size_t k = 0; k < expected_.size(); ++k) {
    if (outputs_[k] == expected_[k]) ++correct;
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
      const std::uint32_t* weights = step.weights();
      const std::uint32_t* x = step.activation(b, l % 2);
      std::uint32_t* y = step.activation(b, (l + 1) % 2);
      auto layer = static_cast<std::uint32_t>(l);
      void* args[] = {&weights, &x, &y, const_cast<int*>(&size), &layer};
      const cudaKernelNodeParams params = layer_params(args, size);
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
  int size = target.size();
  const std::size_t bytes = static_cast<std::size_t>(size) * sizeof(std::uint32_t);
  for (int b = 0; b < shape.batches; ++b) {
    CUDALAB_CUDA_CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec, built.h2d[static_cast<std::size_t>(b)],
                                                          target.activation(b, 0), target.host_input(b), bytes,
                                                          cudaMemcpyHostToDevice));
    for (int l = 0; l < shape.layers; ++l) {
      const std::uint32_t* weights = target.weights();
      const std::uint32_t* x = target.activation(b, l % 2);
      std::uint32_t* y = target.activation(b, (l + 1) % 2);
      auto layer = static_cast<std::uint32_t>(l);
      void* args[] = {&weights, &x, &y, &size, &layer};
      const cudaKernelNodeParams params = layer_params(args, size);
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
