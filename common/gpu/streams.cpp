#include "common/gpu/streams.hpp"

#include "common/gpu/cuda_check.hpp"

namespace cudalab {

ForkJoin::ForkJoin(int workers, unsigned worker_flags, int worker_priority) : fork_(cudaEventDisableTiming) {
  for (int i = 0; i < workers; ++i) {
    workers_.emplace_back(worker_flags, worker_priority);
    joins_.emplace_back(cudaEventDisableTiming);
  }
}

void ForkJoin::fork(cudaStream_t origin) const {
  fork_.record(origin);
  for (const auto& w : workers_) CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(w.get(), fork_.get(), 0));
}

void ForkJoin::join(cudaStream_t origin) const {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    joins_[i].record(workers_[i].get());
    CUDALAB_CUDA_CHECK(cudaStreamWaitEvent(origin, joins_[i].get(), 0));
  }
}

std::vector<cudaStream_t> ForkJoin::handles() const {
  std::vector<cudaStream_t> out;
  for (const auto& w : workers_) out.push_back(w.get());
  return out;
}

CaptureGuard::CaptureGuard(cudaStream_t stream, cudaStreamCaptureMode mode) : stream_(stream) {
  CUDALAB_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
}

CaptureGuard::~CaptureGuard() {
  if (!open_) return;
  // Unwinding: end the capture whatever state it is in; an invalidated capture returns an error
  // here by design, and the partial graph (if any) is released.
  cudaGraph_t graph = nullptr;
  (void)cudaStreamEndCapture(stream_, &graph);
  if (graph != nullptr) CUDALAB_CUDA_CHECK_NOEXCEPT(cudaGraphDestroy(graph));
  (void)cudaGetLastError();  // the ended capture's error is not the next call's
}

Graph CaptureGuard::finish() {
  open_ = false;
  cudaGraph_t graph = nullptr;
  CUDALAB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
  return Graph(graph);
}

}  // namespace cudalab
