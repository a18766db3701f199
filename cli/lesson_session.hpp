// One lesson run, from the queue to a sealed report: the session every way of running a lesson
// goes through (a lesson subcommand, `all`, live mode).
//
//   turn     wait for the GPU(s) in the queue (common/queue), before any CUDA context exists
//   measure  create the context, run the lesson, watch who else worked on the GPU meanwhile
//   give     give the turn back before anything is rendered
//   stamp    identity, version, time, device, preflight, classroom snapshot, then the digest
//
// Ctrl-Z while waiting or measuring gives the turn back and drops what was measured; `fg` queues
// again and measures from the start. A run continued after someone stopped it (kill -STOP) while
// it held its turn measures again too (common/core/interrupt.hpp, TurnScope).
//
// One rank of a run of processes (cli/ranks.hpp) measures on its own GPU only: it meets the other
// ranks before any CUDA context, takes its GPU's turn in the ranks' one order, and keeps the
// meeting (ctx.rendezvous) while it measures. A rank measures once: Ctrl-Z stops it like any
// program, and the other ranks end with a RendezvousError when it stays stopped too long.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/invocation.hpp"
#include "common/queue/rendezvous.hpp"
#include "common/core/run_context.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/gpu/preflight.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/report/report.hpp"

namespace cudalab {

class LessonSession {
 public:
  LessonSession(const LessonSetup& setup, const Invocation& inv);
  // The stamped, sealed report. Throws as the lesson does (WaivedError, RuntimeError, ...),
  // InterruptedError on Ctrl-C or SIGTERM, QueueTimeoutError when --queue-timeout runs out.
  Report run();

 private:
  Report measure_once();                 // one attempt: turn, measure, give back, stamp
  GpuTurns take_turns();                 // sets ctx_.device first under --device auto
  GpuTurns take_turn_as_rank();          // one rank of several: meets the others first
  std::vector<std::string> gpus_to_queue() const;
  std::vector<int> devices_measured() const;
  QueueOptions queue_options() const;
  GpuActivity wait_for_idle_gpu(const DeviceInfo& info) const;
  void stamp(Report& report, const DeviceInfo& info, ClassroomSnapshot& classroom) const;

  const LessonSetup& setup_;
  const Invocation& inv_;
  RunContext ctx_;
  std::optional<Rendezvous> rendezvous_;  // one rank of several: the other ranks, for ctx_.rendezvous
};

// The run a lesson makes with everything a report carries stamped on it: LessonSession(...).run().
Report run_stamped_lesson(const LessonSetup& setup, const Invocation& inv);

}  // namespace cudalab
