// A student's mistake for the GPU tests of lesson 03's exercise: breadth-first: every upload, then every kernel, then every download.
#include <cudalab/stream_overlap_pipeline_v1.h>

void pipeline(const cudalab_exercise::PipelineLab& lab) {
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    const cudaStream_t stream = lab.streams[c % lab.stream_count];
    std::uint8_t* on_device = lab.device + chunk.offset;
    CUDALAB_CHECK(cudaMemcpyAsync(on_device, lab.host_in + chunk.offset, chunk.bytes, cudaMemcpyHostToDevice, stream));
  }
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    lab.kernel(lab.device + chunk.offset, chunk.bytes, lab.streams[c % lab.stream_count]);
  }
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    const cudaStream_t stream = lab.streams[c % lab.stream_count];
    std::uint8_t* on_device = lab.device + chunk.offset;
    CUDALAB_CHECK(cudaMemcpyAsync(lab.host_out + chunk.offset, on_device, chunk.bytes, cudaMemcpyDeviceToHost, stream));
  }
}

CUDALAB_EXERCISE_ENTRY(pipeline)
