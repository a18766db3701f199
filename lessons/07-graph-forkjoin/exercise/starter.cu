// cudalab exercise 07 · graph-forkjoin: capture the training step as a parallel graph.
//
// The bench begins a capture on lab.origin, calls capture(), and ends the capture. Whatever you
// enqueue on a stream that is part of the capture becomes a node of the graph, and the order the
// streams impose becomes its edges. Lesson 06 showed the pitfall: captured on one stream, the
// graph is one long chain and replays every batch in turn.
//
// This starter is correct and slow: every batch goes onto the origin stream, so the graph is one
// chain. Check it with `cudalab exercise 07`; ask for a hint with `cudalab exercise 07 --hint`.
// Done: the graph has as many branches as it can use (one per stream, up to one per batch), every
// result is right, and its replay beats the one-stream capture by the margin the model gives.
#include <cudalab/graph_forkjoin_capture_v1.h>

void capture(const cudalab_exercise::CaptureLab& lab) {
  for (int b = 0; b < lab.batches; ++b) lab.enqueue_batch(b, lab.origin);
}

CUDALAB_EXERCISE_ENTRY(capture)
