// A student's mistake for the GPU tests of lesson 03's exercise: the missing wait: each chunk's kernel on another stream than its upload, with no event between.
#include <cudalab/stream_overlap_pipeline_v1.h>

void pipeline(const cudalab_exercise::PipelineLab& lab) {
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    std::uint8_t* on_device = lab.device + chunk.offset;
    const cudaStream_t stream = lab.streams[c % lab.stream_count];
    const cudaStream_t other = lab.streams[(c + 1) % lab.stream_count];
    CUDALAB_CHECK(cudaMemcpyAsync(on_device, lab.host_in + chunk.offset, chunk.bytes, cudaMemcpyHostToDevice, stream));
    lab.kernel(on_device, chunk.bytes, other);
    CUDALAB_CHECK(cudaMemcpyAsync(lab.host_out + chunk.offset, on_device, chunk.bytes, cudaMemcpyDeviceToHost, other));
  }
}

CUDALAB_EXERCISE_ENTRY(pipeline)
