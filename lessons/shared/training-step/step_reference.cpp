#include "step_reference.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace cudalab::graphs {

namespace {

std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

// Batches [first, last) of the step into `out`.
void reference_batches(const std::vector<std::uint32_t>& weights, const std::vector<std::uint32_t>& inputs,
                       int first, int last, int layers, int size, std::vector<std::uint32_t>& out) {
  const auto n = static_cast<std::size_t>(size);
  std::vector<std::uint32_t> x(n), y(n);
  for (int b = first; b < last; ++b) {
    const auto at = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(b) * n);
    std::copy(inputs.begin() + at, inputs.begin() + at + static_cast<std::ptrdiff_t>(n), x.begin());
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
    std::copy(x.begin(), x.end(), out.begin() + at);
  }
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
  std::vector<std::uint32_t> out(inputs.size());
  const int threads =
      std::max(1, std::min(batches, static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))));
  // Each task writes its own batches' slice of `out`; get() rethrows what a task threw.
  std::vector<std::future<void>> tasks;
  for (int t = 0; t < threads; ++t) {
    const int first = batches * t / threads, last = batches * (t + 1) / threads;
    tasks.push_back(std::async(std::launch::async, [&, first, last] {
      reference_batches(weights, inputs, first, last, layers, size, out);
    }));
  }
  for (auto& task : tasks) task.get();
  return out;
}

std::shared_ptr<const std::vector<std::uint32_t>> step_reference(int batches, int layers, int size,
                                                                 std::uint32_t seed) {
  using Key = std::tuple<int, int, int, std::uint32_t>;
  constexpr std::size_t kKept = 8;  // shapes a process keeps; a live sitting may try many
  static std::mutex mutex;
  static std::map<Key, std::shared_ptr<const std::vector<std::uint32_t>>> computed;
  const Key key{batches, layers, size, seed};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = computed.find(key);
    if (found != computed.end()) return found->second;
  }
  auto result = std::make_shared<const std::vector<std::uint32_t>>(
      cpu_reference(make_weights(size), make_inputs(batches, size, seed), batches, layers, size));
  const std::lock_guard<std::mutex> lock(mutex);
  if (computed.size() >= kKept) computed.clear();
  computed.emplace(key, result);
  return result;
}

}  // namespace cudalab::graphs
