// cudalab exercise 07 · graph-forkjoin: the lab's solution.
//
// Fork: an event recorded on the origin, which every worker stream waits on, brings the workers
// into the capture. Batch b then goes to worker b mod S, so the graph has S independent chains.
// Join: each worker records an event that the origin waits on, so every branch ends back in the
// origin before the bench ends the capture (a branch left out makes cudaStreamEndCapture fail).
#include <cudalab/graph_forkjoin_capture_v1.h>

void capture(const cudalab_exercise::CaptureLab& lab) {
  const cudaEvent_t fork = lab.events[0];
  CUDALAB_CHECK(cudaEventRecord(fork, lab.origin));
  for (int s = 0; s < lab.stream_count; ++s) CUDALAB_CHECK(cudaStreamWaitEvent(lab.streams[s], fork, 0));
  for (int b = 0; b < lab.batches; ++b) lab.enqueue_batch(b, lab.streams[b % lab.stream_count]);
  for (int s = 0; s < lab.stream_count; ++s) {
    const cudaEvent_t joined = lab.events[1 + s];
    CUDALAB_CHECK(cudaEventRecord(joined, lab.streams[s]));
    CUDALAB_CHECK(cudaStreamWaitEvent(lab.origin, joined, 0));
  }
}

CUDALAB_EXERCISE_ENTRY(capture)
