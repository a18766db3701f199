// cudalab exercise 07 (graph-forkjoin), interface graph_forkjoin_capture, version 1.
//
// What the lab's bench hands your capture() and what it expects back. cudalab writes this header
// beside your build each time it compiles your file: do not copy it into your folder.
//
// The bench owns the training step (its batches' buffers and kernels), the streams and the
// events. It begins a capture on `origin` (cudaStreamCaptureModeGlobal), calls your capture()
// once, ends the capture, and instantiates the graph. It then replays that graph for warm-up and
// timed runs, checks every output element against the CPU, reads the graph's shape (its nodes,
// edges and how many of them can run at once) and draws one replay under CUPTI.
#pragma once

#include <cuda_runtime.h>

namespace cudalab_exercise {

struct CaptureLab {
  cudaStream_t origin;           // being captured when capture() is called; the capture ends on it
  const cudaStream_t* streams;   // worker streams you may bring into the capture
  int stream_count;
  const cudaEvent_t* events;     // events for the forks and joins (stream_count + 1 of them)
  int event_count;
  int batches;                   // the step's batches: 0 .. batches-1
  // Enqueues batch `batch` whole on `stream`: its input copy, its layer kernels, its output copy.
  void (*enqueue_batch)(int batch, cudaStream_t stream);
  // Tells the bench that `call` failed with `error` at file:line (CUDALAB_CHECK calls it).
  void (*failed)(const char* call, int error, const char* file, int line);
};

// The one function you write: every batch goes into the capture, as a graph whose branches can
// run side by side.
using CaptureFunction = void (*)(const CaptureLab& lab);

struct CaptureHooks {
  CaptureFunction capture;
};

}  // namespace cudalab_exercise

// Checks a CUDA call inside capture(): on an error the bench is told which call failed, where,
// and with which error, and capture() returns at once.
#define CUDALAB_CHECK(call)                                                                \
  do {                                                                                     \
    const cudaError_t cudalab_error_ = (call);                                             \
    if (cudalab_error_ != cudaSuccess) {                                                   \
      lab.failed(#call, static_cast<int>(cudalab_error_), __FILE__, __LINE__);             \
      return;                                                                              \
    }                                                                                      \
  } while (false)

// The entry point the bench looks for: your function, and the interface it was written for.
extern "C" {
struct cudalab_exercise_entry_t {
  const char* interface_name;
  int interface_version;
  const void* hooks;
};
}
#define CUDALAB_EXERCISE_ENTRY(function)                                                            \
  static const cudalab_exercise::CaptureHooks cudalab_hooks_ = {&function};                          \
  extern "C" __attribute__((visibility("default")))                                                  \
  const cudalab_exercise_entry_t cudalab_exercise_entry = {"graph_forkjoin_capture", 1, &cudalab_hooks_};
