// Stream patterns every concurrency lesson uses: fork/join across streams with events, and a
// stream capture that always ends, even when the code inside it throws.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

#include "common/gpu/cuda_raii.hpp"

namespace cudalab {

// An origin stream and `count` worker streams, with the events that fork work out to the
// workers and join it back. Inside a capture, the fork is how the workers join the capture,
// and the join is what a capture needs before it may end.
class ForkJoin {
 public:
  explicit ForkJoin(int workers, unsigned worker_flags = cudaStreamNonBlocking, int worker_priority = 0);

  // Every worker starts only after what `origin` has issued so far.
  void fork(cudaStream_t origin) const;
  // `origin` waits for everything issued so far on every worker.
  void join(cudaStream_t origin) const;

  int count() const { return static_cast<int>(workers_.size()); }
  const Stream& worker(int i) const { return workers_[static_cast<std::size_t>(i)]; }
  std::vector<cudaStream_t> handles() const;

 private:
  std::vector<Stream> workers_;
  Event fork_;
  std::vector<Event> joins_;
};

// cudaStreamBeginCapture on construction; finish() ends it and returns the graph. Leaving the
// scope without finish() (an exception inside the capture) ends the capture and drops its graph,
// so the stream is usable again and nothing leaks.
class CaptureGuard {
 public:
  explicit CaptureGuard(cudaStream_t stream, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal);
  ~CaptureGuard();
  CaptureGuard(const CaptureGuard&) = delete;
  CaptureGuard& operator=(const CaptureGuard&) = delete;

  Graph finish();

 private:
  cudaStream_t stream_;
  bool open_ = true;
};

// Captures what `enqueue(stream)` puts on `stream` (and on streams forked from it) into a graph.
template <typename Enqueue>
Graph capture(cudaStream_t stream, Enqueue&& enqueue) {
  CaptureGuard guard(stream);
  enqueue(stream);
  return guard.finish();
}

}  // namespace cudalab
