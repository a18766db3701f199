#include "capture_mistakes.hpp"

#include <cuda_runtime_api.h>

#include <thread>

#include <fmt/format.h>

#include "common/gpu/cuda_check.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "lessons/shared/training-step/training_step.hpp"

namespace cudalab::graphs {

namespace {

std::string name_of(cudaError_t err) { return cudaGetErrorName(err); }

// Leaves `stream` out of any capture: ends a capture still open on it (destroying whatever graph
// comes back) and clears the last-error slot the failed calls filled.
void abandon_capture(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t graph = nullptr;
    (void)cudaStreamEndCapture(stream, &graph);
    if (graph != nullptr) CUDALAB_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  (void)cudaGetLastError();
}

CaptureMistake legacy_default_stream() {
  CaptureMistake m{"legacy_stream", "cudaStreamBeginCapture on the legacy default stream (stream 0)",
                   "cudaStreamBeginCapture(cudaStreamLegacy, ...)", {}, {"cudaErrorStreamCaptureUnsupported"},
                   "the legacy default stream synchronizes with every other blocking stream, so its work can never "
                   "be a self-contained graph: capture it on a stream you created"};
  const cudaError_t err = cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal);
  m.errors = {name_of(err)};
  abandon_capture(cudaStreamLegacy);
  return m;
}

CaptureMistake synchronize_during_capture() {
  CaptureMistake m{"sync_in_capture", "cudaStreamSynchronize on a stream that is being captured",
                   "cudaStreamSynchronize, then cudaStreamEndCapture", {},
                   {"cudaErrorStreamCaptureUnsupported", "cudaErrorStreamCaptureInvalidated"},
                   "nothing has run yet during capture, so there is nothing to wait for; the illegal call also "
                   "invalidates the capture, and cudaStreamEndCapture then returns cudaErrorStreamCaptureInvalidated "
                   "and no graph"};
  Stream stream;
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  launch_empty_kernels(1, stream);
  const cudaError_t sync_err = cudaStreamSynchronize(stream);
  cudaGraph_t graph = nullptr;
  const cudaError_t end_err = cudaStreamEndCapture(stream, &graph);
  if (graph != nullptr) CUDALAB_CUDA_CHECK(cudaGraphDestroy(graph));
  m.errors = {name_of(sync_err), name_of(end_err)};
  abandon_capture(stream);
  return m;
}

CaptureMistake fork_without_join() {
  CaptureMistake m{"unjoined_fork", "fork into a second stream and end the capture without joining it back",
                   "cudaStreamEndCapture(origin)", {}, {"cudaErrorStreamCaptureUnjoined"},
                   "work on the forked stream would have no path back to the origin; record an event on the forked "
                   "stream and make the origin wait on it before ending the capture"};
  Stream origin;
  Stream forked;
  Event fork(cudaEventDisableTiming);
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  fork.record(origin);
  CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(forked, fork, 0));
  launch_empty_kernels(1, forked);
  cudaGraph_t graph = nullptr;
  const cudaError_t err = cudaStreamEndCapture(origin, &graph);
  if (graph != nullptr) CUDALAB_CUDA_CHECK(cudaGraphDestroy(graph));
  m.errors = {name_of(err)};
  abandon_capture(forked);
  abandon_capture(origin);
  return m;
}

CaptureMistake launch_without_instantiate() {
  CaptureMistake m{"never_instantiated",
                   "cudaGraphLaunch with an exec handle that cudaGraphInstantiate never filled in",
                   "cudaGraphLaunch(cudaGraphExec_t{nullptr}, stream)", {}, {"cudaErrorInvalidValue"},
                   "cudaGraphLaunch takes a cudaGraphExec_t, the instantiated graph, not the cudaGraph_t that capture "
                   "returns; without cudaGraphInstantiate there is nothing to launch"};
  Stream stream;
  cudaGraphExec_t never_instantiated = nullptr;
  const cudaError_t err = cudaGraphLaunch(never_instantiated, stream);
  m.errors = {name_of(err)};
  (void)cudaGetLastError();
  return m;
}

// cudaMalloc, a "potentially unsafe" call, while a capture in `mode` is open: from the capturing
// thread itself, or from another thread.
CaptureMistake malloc_during_capture(cudaStreamCaptureMode mode, bool other_thread) {
  const char* mode_name = mode == cudaStreamCaptureModeGlobal        ? "global"
                          : mode == cudaStreamCaptureModeThreadLocal ? "thread-local"
                                                                     : "relaxed";
  const bool forbidden = mode == cudaStreamCaptureModeGlobal || (mode == cudaStreamCaptureModeThreadLocal && !other_thread);
  CaptureMistake m{fmt::format("malloc.{}.{}", mode_name, other_thread ? "other_thread" : "same_thread"),
                   msg("cudaMalloc from {thread} during a {mode} capture",
                       arg("thread", other_thread ? "another thread" : "the capturing thread"), arg("mode", mode_name)),
                   "cudaMalloc", {}, {forbidden ? "cudaErrorStreamCaptureUnsupported" : "cudaSuccess"},
                   forbidden ? "this mode forbids calls that could synchronize behind the capture's back"
                             : "this mode lets it through: the allocation is not part of the graph"};
  Stream stream;
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  cudaError_t err = cudaSuccess;
  int device = 0;  // the other thread allocates on the run's device, not on device 0
  CUDALAB_CUDA_CHECK(cudaGetDevice(&device));
  auto allocate = [&err, device] {
    CUDALAB_CUDA_CHECK_NOEXCEPT(cudaSetDevice(device));
    void* p = nullptr;
    err = cudaMalloc(&p, 256);
    if (p != nullptr) CUDALAB_CUDA_CHECK_NOEXCEPT(cudaFree(p));
  };
  if (other_thread) {
    std::thread t(allocate);
    t.join();
  } else {
    allocate();
  }
  m.errors = {name_of(err)};
  abandon_capture(stream);
  return m;
}

void CUDART_CB do_nothing(cudaStream_t, cudaError_t, void*) {}
void CUDART_CB host_node(void*) {}

// The legacy callback cannot become a graph node; cudaLaunchHostFunc can.
CaptureMistake legacy_callback_in_capture() {
  CaptureMistake m{"add_callback", "cudaStreamAddCallback during a capture", "cudaStreamAddCallback", {},
                   {"cudaErrorStreamCaptureUnsupported"},
                   "the legacy callback has no graph node; capture cudaLaunchHostFunc instead (a host node)"};
  Stream stream;
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  m.errors = {name_of(cudaStreamAddCallback(stream, do_nothing, nullptr, 0))};
  abandon_capture(stream);
  return m;
}

// Every capturable kind in one capture: a kernel, an async copy, an async memset, a host function,
// and an event record / wait across two streams. All return cudaSuccess; the graph shows them.
CaptureMistake everything_capturable() {
  CaptureMistake m{"capturable", "kernel, cudaMemcpyAsync, cudaMemsetAsync, cudaLaunchHostFunc, event record/wait",
                   "each call during capture", {}, {"cudaSuccess"}, {}};
  Stream origin, side;
  Event fork(cudaEventDisableTiming), back(cudaEventDisableTiming);
  DeviceBuffer<int> a(256), b(256);
  cudaError_t worst = cudaSuccess;
  auto keep = [&](cudaError_t e) { worst = worst == cudaSuccess ? e : worst; };
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeGlobal));
  keep(cudaMemsetAsync(a.data(), 0, a.bytes(), origin));
  keep(cudaEventRecord(fork, origin));
  keep(cudaStreamWaitEvent(side, fork, 0));
  launch_empty_kernels(1, side);
  keep(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, side));
  keep(cudaEventRecord(back, side));
  keep(cudaStreamWaitEvent(origin, back, 0));
  keep(cudaLaunchHostFunc(origin, host_node, nullptr));
  cudaGraph_t graph = nullptr;
  keep(cudaStreamEndCapture(origin, &graph));
  std::size_t nodes = 0;
  if (graph != nullptr) {
    CUDALAB_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    CUDALAB_CUDA_CHECK(cudaGraphDestroy(graph));
  }
  m.errors = {name_of(worst)};
  m.meaning = msg("these become kernel, memcpy, memset and host nodes; the event pair becomes an edge ({nodes} nodes "
                  "captured)",
                  arg("nodes", nodes));
  abandon_capture(side);
  abandon_capture(origin);
  return m;
}

}  // namespace

std::vector<CaptureMistake> make_capture_mistakes() {
  std::vector<CaptureMistake> mistakes;
  mistakes.push_back(legacy_default_stream());
  mistakes.push_back(synchronize_during_capture());
  mistakes.push_back(fork_without_join());
  mistakes.push_back(launch_without_instantiate());
  mistakes.push_back(legacy_callback_in_capture());
  for (auto mode : {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed}) {
    mistakes.push_back(malloc_during_capture(mode, /*other_thread=*/false));
  }
  mistakes.push_back(malloc_during_capture(cudaStreamCaptureModeGlobal, /*other_thread=*/true));
  mistakes.push_back(malloc_during_capture(cudaStreamCaptureModeThreadLocal, /*other_thread=*/true));
  mistakes.push_back(everything_capturable());
  return mistakes;
}

}  // namespace cudalab::graphs
