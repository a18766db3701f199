// The processes a run starts to measure for it (an exercise's child, which runs the student's
// code): what they do on the GPU is the run's own work, never another tenant's, so the GPU's
// watch (gpu/nvml.cpp) counts them as this process, while they live and after they are gone (the
// watch reads utilisation samples of a past window, and the driver may list a context for a moment
// after its process ended).
#pragma once

namespace cudalab {

// Counts `pid` as this run for the rest of this process's life (the last 256 such pids).
void count_as_this_run(long pid);

bool is_run_child(long pid);

}  // namespace cudalab
