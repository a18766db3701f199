// cudalab exercise 03 · stream-overlap: write the chunked pipeline.
//
// The bench gives you the input in pinned host memory, cut into chunks, a device buffer, several
// streams and the lesson's kernel. Make the copies of one chunk overlap the kernel of another, as
// lesson 03 showed: one engine uploads chunk c+1 while the SMs compute chunk c and the other
// engine downloads chunk c-1.
//
// This starter is correct and slow: every chunk goes through one stream, so nothing overlaps.
// Check it with `cudalab exercise 03`; ask for a hint with `cudalab exercise 03 --hint`.
// Done: every byte right, and a speed-up over one stream of at least 90% of the lab's own
// depth-first pipeline, measured in the same run.
#include <cudalab/stream_overlap_pipeline_v1.h>

void pipeline(const cudalab_exercise::PipelineLab& lab) {
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    const cudaStream_t stream = lab.streams[0];
    std::uint8_t* on_device = lab.device + chunk.offset;
    CUDALAB_CHECK(cudaMemcpyAsync(on_device, lab.host_in + chunk.offset, chunk.bytes, cudaMemcpyHostToDevice, stream));
    lab.kernel(on_device, chunk.bytes, stream);
    CUDALAB_CHECK(cudaMemcpyAsync(lab.host_out + chunk.offset, on_device, chunk.bytes, cudaMemcpyDeviceToHost, stream));
  }
}

CUDALAB_EXERCISE_ENTRY(pipeline)
