// Lesson 09's experiments on the GPU, and everything they measured, as plain data.
#pragma once

#include <string>
#include <vector>

#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"
#include "params.hpp"

namespace cudalab::events_sync {

// One kernel of --kernel-us, timed four ways.
struct TimingSample {
  double host_launch_us = 0;       // host clock around the launch call only
  double host_launch_sync_us = 0;  // host clock around launch + stop record + cudaStreamSynchronize
  double event_us = 0;             // cudaEventElapsedTime between events around the kernel
  double gpu_stamp_us = 0;         // the kernel's own %globaltimer, end - start
};

// --records cudaEventRecord calls of one kind, per record: on the host (the call) and on the GPU
// (the stream held by a kernel while they are enqueued, then timed as one run).
struct RecordCostSample {
  double host_timing_us = 0;
  double host_plain_us = 0;  // cudaEventDisableTiming
  double gpu_timing_us = 0;
  double gpu_plain_us = 0;
  bool stream_was_held = true;  // the host finished enqueuing before the holding kernel ended
};

// One wait for a kernel of --kernel-us that flags its end in mapped memory: a watcher thread
// stamps the host clock when the flag flips; the waiting thread stamps it when its wait returns.
struct WaitSample {
  double wake_us = 0;  // wait returned - work seen done, both on the host's steady clock
  double cpu_us = 0;   // CPU time of the waiting thread during the wait (CLOCK_THREAD_CPUTIME_ID)
  double wall_us = 0;  // the wait's duration on the host clock
};
struct WaitRow {
  std::string key;    // see model.hpp: the row keys
  Message label;      // what a student reads: words, translated
  std::vector<WaitSample> samples;
};

// Stream B's kernel after stream A's: gap between A's end and B's start (both %globaltimer),
// with the GPU waiting (cudaStreamWaitEvent) and with the host waiting, then launching.
struct ChainSample {
  double gpu_wait_gap_us = 0;
  double gpu_wait_enqueue_cpu_us = 0;  // host CPU to enqueue the wait and B's kernel: all it costs
  double host_wait_gap_us = 0;
  double host_wait_cpu_us = 0;  // host CPU burned in cudaStreamSynchronize(A)
};

struct Measurements {
  std::vector<TimingSample> timing;
  std::vector<RecordCostSample> records;
  std::vector<WaitRow> waits;       // ways to wait, default scheduling
  std::vector<WaitRow> scheduling;  // cudaStreamSynchronize under each device flag, and a blocking-sync event
  bool scheduling_flags_applied = true;  // cudaGetDeviceFlags read back each flag we set
  std::vector<ChainSample> chain;
  Tally right;               // consumer output, dependency done right, against the CPU
  Tally wrong;               // the same, done wrong
  std::size_t wrong_stale = 0;  // of the wrong ones: computed from the previous round's data
  std::vector<Timeline> timelines;
};

Measurements measure(const Params& p, const RunContext& ctx);

}  // namespace cudalab::events_sync
