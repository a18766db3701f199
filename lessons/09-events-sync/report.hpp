// Lesson 09's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::events_sync {

// A host clock around an asynchronous launch reads under this share of the kernel's event time.
inline constexpr double kLaunchMaxShareOfKernel = 0.5;
// Events around a kernel agree with its own %globaltimer span to this share, plus a few
// microseconds for the launch gap between the start event and the kernel.
inline constexpr double kEventMatchShare = 0.1;
inline constexpr double kEventMatchSlackUs = 10.0;
// A cudaEventDisableTiming record costs the GPU under this share of a timing one (a timing record
// waits for a timestamp; measured on the lab H200: 0.01 us against 3 us).
inline constexpr double kPlainRecordMaxShare = 0.5;
// A spinning or polling waiter is on a CPU for at least this share of its wait ...
inline constexpr double kSpinMinCpuShare = 0.8;
// ... and a blocked one for at most this share.
inline constexpr double kBlockingMaxCpuShare = 0.2;
// A spinning waiter returns within this long after the work is seen done.
inline constexpr double kSpinMaxWakeUs = 50.0;
// The host CPU spent enqueuing a GPU-side wait is under this share of what a host wait burns.
inline constexpr double kGpuWaitMaxCpuShare = 0.1;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::events_sync
