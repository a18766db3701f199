// cudalab exercise 03 (stream-overlap), interface stream_overlap_pipeline, version 1.
//
// What the lab's bench hands your pipeline() and what it expects back. cudalab writes this header
// beside your build each time it compiles your file: do not copy it into your folder.
//
// The bench owns every buffer and stream. It fills host_in, poisons host_out and the device
// buffer, starts its clock (a CUDA event), makes every stream in `streams` wait for that start,
// calls your pipeline() once, makes its clock wait for every stream in `streams`, and stops the
// clock. It does that for warm-up and timed runs, once more to check every output byte against the
// CPU, and once more under CUPTI to draw what the GPU did.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace cudalab_exercise {

// Bytes [offset, offset + bytes) of the buffers: one piece of the pipeline.
struct Chunk {
  std::size_t offset;
  std::size_t bytes;
};

struct PipelineLab {
  const std::uint8_t* host_in;   // pinned host memory: the input, `bytes` long
  std::uint8_t* host_out;        // pinned host memory: where every result byte must arrive
  std::uint8_t* device;          // device memory, `bytes` long: chunk c lives at device + chunks[c].offset
  std::size_t bytes;
  const Chunk* chunks;           // the chunks, in order, covering every byte exactly once
  int chunk_count;
  const cudaStream_t* streams;   // the streams you may use (blocking streams the bench created)
  int stream_count;
  // The lesson's kernel: maps `bytes` bytes at `data` in place, on `stream`.
  void (*kernel)(std::uint8_t* data, std::size_t bytes, cudaStream_t stream);
  // Tells the bench that `call` failed with `error` at file:line (CUDALAB_CHECK calls it).
  void (*failed)(const char* call, int error, const char* file, int line);
};

// The one function you write: every byte of host_in goes to the device, through lab.kernel, and
// back to host_out. Enqueue asynchronously; the bench waits for the streams it gave you.
using PipelineFunction = void (*)(const PipelineLab& lab);

struct PipelineHooks {
  PipelineFunction pipeline;
};

}  // namespace cudalab_exercise

// Checks a CUDA call inside pipeline(): on an error the bench is told which call failed, where,
// and with which error, and pipeline() returns at once.
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
#define CUDALAB_EXERCISE_ENTRY(function)                                                             \
  static const cudalab_exercise::PipelineHooks cudalab_hooks_ = {&function};                          \
  extern "C" __attribute__((visibility("default")))                                                   \
  const cudalab_exercise_entry_t cudalab_exercise_entry = {"stream_overlap_pipeline", 1, &cudalab_hooks_};
