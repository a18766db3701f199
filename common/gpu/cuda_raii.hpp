// Move-only owners for every CUDA resource a lesson touches. Each constructor checks its call
// (and throws); each destructor releases with the _NOEXCEPT check, so an exception unwinding a
// lesson still frees everything on the way out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "common/gpu/cuda_check.hpp"

namespace cudalab {

// Shared move-only plumbing: a handle plus the function that releases it.
template <typename Handle, cudaError_t (*Release)(Handle)>
class UniqueCudaHandle {
 public:
  UniqueCudaHandle() = default;
  explicit UniqueCudaHandle(Handle handle) : handle_(handle) {}
  UniqueCudaHandle(const UniqueCudaHandle&) = delete;
  UniqueCudaHandle& operator=(const UniqueCudaHandle&) = delete;
  UniqueCudaHandle(UniqueCudaHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueCudaHandle& operator=(UniqueCudaHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  ~UniqueCudaHandle() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  void reset() noexcept {
    if (handle_ != Handle{}) CUDALAB_CUDA_CHECK_NOEXCEPT(Release(handle_));
    handle_ = Handle{};
  }

 private:
  Handle handle_{};
};

namespace detail {
inline cudaError_t free_device(void* p) { return cudaFree(p); }
inline cudaError_t free_pinned(void* p) { return cudaFreeHost(p); }
inline cudaError_t unregister_host(void* p) { return cudaHostUnregister(p); }
}  // namespace detail

// n elements of T at memory one CUDA call allocated and `Release` frees: what every buffer shares
// (DeviceBuffer, PinnedBuffer here; ManagedBuffer, MappedBuffer beside lesson 11's needs). Each
// buffer only allocates, in its constructor, with its own checked call, and hands the pointer in.
template <typename T, cudaError_t (*Release)(void*)>
class CudaArray {
 public:
  T* data() const { return static_cast<T*>(ptr_.get()); }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 protected:
  CudaArray() = default;
  CudaArray(void* allocated, std::size_t count) : ptr_(allocated), count_(count) {}

 private:
  UniqueCudaHandle<void*, Release> ptr_;
  std::size_t count_ = 0;
};

// n elements of T in device memory (cudaMalloc). No operator[]: the host cannot read it.
template <typename T>
class DeviceBuffer : public CudaArray<T, detail::free_device> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : CudaArray<T, detail::free_device>(allocate(count), count) {}

 private:
  static void* allocate(std::size_t count) {
    void* p = nullptr;
    if (count > 0) CUDALAB_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
    return p;
  }
};

// n elements of T in page-locked host memory (cudaMallocHost): what lets copies run async.
template <typename T>
class PinnedBuffer : public CudaArray<T, detail::free_pinned> {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : CudaArray<T, detail::free_pinned>(allocate(count), count) {}
  T& operator[](std::size_t i) const { return this->data()[i]; }

 private:
  static void* allocate(std::size_t count) {
    void* p = nullptr;
    if (count > 0) CUDALAB_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
    return p;
  }
};

// Page-locks memory the caller already owns (cudaHostRegister) for as long as this lives.
class HostRegistration {
 public:
  HostRegistration() = default;
  HostRegistration(void* ptr, std::size_t bytes, unsigned flags = cudaHostRegisterDefault) {
    CUDALAB_CUDA_CHECK(cudaHostRegister(ptr, bytes, flags));
    ptr_ = Owner(ptr);
  }

 private:
  using Owner = UniqueCudaHandle<void*, detail::unregister_host>;
  Owner ptr_;
};

class Stream {
 public:
  // priority: lower number = higher priority; CUDA clamps values outside the device's range.
  explicit Stream(unsigned flags = cudaStreamNonBlocking, int priority = 0) {
    cudaStream_t s = nullptr;
    CUDALAB_CUDA_CHECK(cudaStreamCreateWithPriority(&s, flags, priority));
    stream_ = Owner(s);
  }
  cudaStream_t get() const { return stream_.get(); }
  operator cudaStream_t() const { return stream_.get(); }  // NOLINT: reads like a raw stream
  void synchronize() const { CUDALAB_CUDA_CHECK(cudaStreamSynchronize(get())); }
  int priority() const {
    int p = 0;
    CUDALAB_CUDA_CHECK(cudaStreamGetPriority(get(), &p));
    return p;
  }

 private:
  using Owner = UniqueCudaHandle<cudaStream_t, cudaStreamDestroy>;
  Owner stream_;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    CUDALAB_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    event_ = Owner(e);
  }
  cudaEvent_t get() const { return event_.get(); }
  operator cudaEvent_t() const { return event_.get(); }  // NOLINT
  void record(cudaStream_t stream) const { CUDALAB_CUDA_CHECK(cudaEventRecord(get(), stream)); }
  void synchronize() const { CUDALAB_CUDA_CHECK(cudaEventSynchronize(get())); }

 private:
  using Owner = UniqueCudaHandle<cudaEvent_t, cudaEventDestroy>;
  Owner event_;
};

// Two events around a region of one stream; elapsed_ms() waits for the stop event.
class EventTimer {
 public:
  void start(cudaStream_t stream) { start_.record(stream); }
  void stop(cudaStream_t stream) { stop_.record(stream); }
  float elapsed_ms() const {
    stop_.synchronize();
    float ms = 0.0f;
    CUDALAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms;
  }

 private:
  Event start_;
  Event stop_;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(cudaGraph_t g) : graph_(g) {}  // takes ownership (e.g. from cudaStreamEndCapture)
  static Graph create() {
    cudaGraph_t g = nullptr;
    CUDALAB_CUDA_CHECK(cudaGraphCreate(&g, 0));
    return Graph(g);
  }
  cudaGraph_t get() const { return graph_.get(); }
  explicit operator bool() const { return static_cast<bool>(graph_); }

 private:
  using Owner = UniqueCudaHandle<cudaGraph_t, cudaGraphDestroy>;
  Owner graph_;
};

class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(const Graph& graph) {
    cudaGraphExec_t e = nullptr;
    CUDALAB_CUDA_CHECK(cudaGraphInstantiate(&e, graph.get(), 0));
    exec_ = Owner(e);
  }
  cudaGraphExec_t get() const { return exec_.get(); }
  void launch(cudaStream_t stream) const { CUDALAB_CUDA_CHECK(cudaGraphLaunch(get(), stream)); }

 private:
  using Owner = UniqueCudaHandle<cudaGraphExec_t, cudaGraphExecDestroy>;
  Owner exec_;
};

}  // namespace cudalab
