// A student's mistake for the GPU tests of lesson 03's exercise: a null pointer dereferenced on the host.
#include <cudalab/stream_overlap_pipeline_v1.h>

void pipeline(const cudalab_exercise::PipelineLab& lab) {
  const cudalab_exercise::Chunk* volatile chunks = nullptr;  // meant to be lab.chunks
  for (int c = 0; c < lab.chunk_count; ++c) {
    const cudalab_exercise::Chunk chunk = chunks[c];
    lab.kernel(lab.device + chunk.offset, chunk.bytes, lab.streams[0]);
  }
}

CUDALAB_EXERCISE_ENTRY(pipeline)
