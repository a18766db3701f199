#include "capture_mistakes.hpp"

#include <cuda_runtime_api.h>

#include "common/cuda/cuda_raii.hpp"
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
                   "cudaStreamBeginCapture(cudaStreamLegacy, ...)", "", "cudaErrorStreamCaptureUnsupported",
                   "the legacy default stream synchronizes with every other blocking stream, so its work can never "
                   "be a self-contained graph: capture it on a stream you created"};
  const cudaError_t err = cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal);
  m.error_name = name_of(err);
  abandon_capture(cudaStreamLegacy);
  return m;
}

CaptureMistake synchronize_during_capture() {
  CaptureMistake m{"sync_in_capture", "cudaStreamSynchronize on a stream that is being captured",
                   "cudaStreamSynchronize, then cudaStreamEndCapture", "", "cudaErrorStreamCaptureUnsupported",
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
  m.error_name = name_of(sync_err) + " then " + name_of(end_err);
  m.expected = "cudaErrorStreamCaptureUnsupported then cudaErrorStreamCaptureInvalidated";
  abandon_capture(stream);
  return m;
}

CaptureMistake fork_without_join() {
  CaptureMistake m{"unjoined_fork", "fork into a second stream and end the capture without joining it back",
                   "cudaStreamEndCapture(origin)", "", "cudaErrorStreamCaptureUnjoined",
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
  m.error_name = name_of(err);
  abandon_capture(forked);
  abandon_capture(origin);
  return m;
}

CaptureMistake launch_without_instantiate() {
  CaptureMistake m{"never_instantiated",
                   "cudaGraphLaunch with an exec handle that cudaGraphInstantiate never filled in",
                   "cudaGraphLaunch(cudaGraphExec_t{nullptr}, stream)", "", "cudaErrorInvalidValue",
                   "cudaGraphLaunch takes a cudaGraphExec_t, the instantiated graph, not the cudaGraph_t that capture "
                   "returns; without cudaGraphInstantiate there is nothing to launch"};
  Stream stream;
  cudaGraphExec_t never_instantiated = nullptr;
  const cudaError_t err = cudaGraphLaunch(never_instantiated, stream);
  m.error_name = name_of(err);
  (void)cudaGetLastError();
  return m;
}

}  // namespace

std::vector<CaptureMistake> make_capture_mistakes() {
  std::vector<CaptureMistake> mistakes;
  mistakes.push_back(legacy_default_stream());
  mistakes.push_back(synchronize_during_capture());
  mistakes.push_back(fork_without_join());
  mistakes.push_back(launch_without_instantiate());
  return mistakes;
}

}  // namespace cudalab::graphs
