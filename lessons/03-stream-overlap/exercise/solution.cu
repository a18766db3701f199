// cudalab exercise 03 · stream-overlap: the lab's solution.
//
// Depth-first issue order: each chunk's upload, kernel and download go to one stream, and the
// chunks take the streams in turn (chunk c on stream c mod S). Within a stream the three stay in
// order, so a kernel never reads a chunk before its upload is done; across streams nothing waits,
// so the copy engines and the SMs work on different chunks at once.
#include <cudalab/stream_overlap_pipeline_v1.h>

void pipeline(const cudalab_exercise::PipelineLab& lab) {
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = lab.chunks[c];
    const cudaStream_t stream = lab.streams[c % lab.stream_count];
    std::uint8_t* on_device = lab.device + chunk.offset;
    CUDALAB_CHECK(cudaMemcpyAsync(on_device, lab.host_in + chunk.offset, chunk.bytes, cudaMemcpyHostToDevice, stream));
    lab.kernel(on_device, chunk.bytes, stream);
    CUDALAB_CHECK(cudaMemcpyAsync(lab.host_out + chunk.offset, on_device, chunk.bytes, cudaMemcpyDeviceToHost, stream));
  }
}

CUDALAB_EXERCISE_ENTRY(pipeline)
