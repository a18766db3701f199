// A student's mistake for the GPU tests of lesson 07's exercise: the streams are forked into the
// capture, but never joined back into the origin.
#include <cudalab/graph_forkjoin_capture_v1.h>

void capture(const cudalab_exercise::CaptureLab& lab) {
  CUDALAB_CHECK(cudaEventRecord(lab.events[0], lab.origin));
  for (int s = 0; s < lab.stream_count; ++s) CUDALAB_CHECK(cudaStreamWaitEvent(lab.streams[s], lab.events[0], 0));
  for (int b = 0; b < lab.batches; ++b) lab.enqueue_batch(b, lab.streams[b % lab.stream_count]);
}

CUDALAB_EXERCISE_ENTRY(capture)
