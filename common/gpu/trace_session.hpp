// Tracing one run of a lesson with CUPTI, the source Nsight Systems reads too. The whole
// lesson-side API:
//
//   if (ctx.tracing()) {                        // --timeline or --trace was given
//     TraceSession trace;                       // starts recording; never around timed runs
//     trace.name_stream(stream, "chunk 0");     // lanes are named by the lesson, one per stream
//     { NvtxRange phase("overlapped"); run_variant_once(); }
//     if (auto t = trace.finish("overlapped (4 streams)")) report.timelines.push_back(std::move(*t));
//   }
//
// Tracing adds overhead, so the traced run is an extra run after the timed ones: timed figures
// never include it. When CUPTI cannot be used (libcupti.so.13 missing, another profiler such as
// Nsight already subscribed, no permission) the constructor prints one line on stderr and the
// session does nothing: finish() returns nullopt and the lesson runs on without a timeline.
// libcupti is loaded with dlopen, so cudalab still starts on a machine with only the driver.
// Only one session may exist at a time (CUPTI's activity buffers are process-wide).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/core/timeline.hpp"

namespace cudalab {

// Which devices' work a session keeps: the current device's (every single-GPU lesson), or every
// device's (a lesson that drives several GPUs names lanes on each; a lane is then keyed by device
// and stream, as CUPTI's stream ids are unique only within one device's context).
enum class TraceScope { current_device, all_devices };

class TraceSession {
 public:
  explicit TraceSession(TraceScope scope = TraceScope::current_device);
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;


  // Names the lane of `stream` (nullptr: the legacy default stream). Lanes appear in the order
  // they were named; streams the lesson did not name get "stream N" lanes after them.
  void name_stream(cudaStream_t stream, const Message& name);

  // CUPTI's clock in ns, the one its records use. Safe to call inside a host function
  // (cudaLaunchHostFunc); pass the two readings to add_host_op after the stream is done.
  static std::uint64_t now_ns();
  // A host callback that ran on `stream` between two now_ns() readings (CUPTI records no
  // activity for host functions, so the lesson reports them).
  void add_host_op(cudaStream_t stream, const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns);

  // Also records what unified (managed) memory does: the pages the driver migrates, on a lane
  // "page migrations", and the page faults that made it move them, on "page faults" (CUPTI's
  // unified-memory counters). Where CUPTI cannot count them here (the platform, the device, MPS),
  // prints one line saying so and returns false; the copies and kernels are recorded either way.
  bool record_unified_memory();

  // Forgets everything recorded so far (after waiting for the device): for a rehearsal run
  // inside the session, whose first launches pay CUPTI's one-time costs.
  void discard_recorded();
  // Waits for the device, flushes CUPTI's buffers and stops recording. The Timeline's key is
  // made from the title; notes_key names a course-notes section to print under the picture.
  std::optional<Timeline> finish(const Message& title, const std::string& notes_key = {});

 private:
  std::uint32_t lane_key(std::uint32_t device, std::uint32_t stream) const;
  std::uint32_t stream_id(cudaStream_t stream) const;
  void stop() noexcept;

  void synchronize_traced_devices() const;

  bool active_ = false;
  TraceScope scope_ = TraceScope::current_device;
  int device_ = 0;
  std::vector<std::pair<std::uint32_t, Message>> lane_names_;  // in naming order
  std::vector<int> enabled_kinds_;  // CUpti_ActivityKind values, to disable on stop
};

}  // namespace cudalab
