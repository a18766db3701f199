// A student's mistake for the GPU tests of lesson 03's exercise: an endless loop on the host.
#include <cudalab/stream_overlap_pipeline_v1.h>
static volatile bool waiting_for_godot = true;
void pipeline(const cudalab_exercise::PipelineLab& lab) {
  while (waiting_for_godot) {
  }
  (void)lab;
}

CUDALAB_EXERCISE_ENTRY(pipeline)
