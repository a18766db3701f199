// A student's mistake for the GPU tests of lesson 07's exercise: every batch captured on the origin (the starter).
#include <cudalab/graph_forkjoin_capture_v1.h>

void capture(const cudalab_exercise::CaptureLab& lab) {
  for (int b = 0; b < lab.batches; ++b) lab.enqueue_batch(b, lab.origin);
}

CUDALAB_EXERCISE_ENTRY(capture)
