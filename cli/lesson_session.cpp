#include "cli/lesson_session.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/ranks.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/phases.hpp"
#include "common/core/progress.hpp"
#include "common/core/version.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/launch_latch.hpp"
#include "common/gpu/nvml.hpp"
#include "common/gpu/phase.hpp"
#include "common/queue/gpu_presence.hpp"
#include "common/report/integrity.hpp"
#include "common/report/provenance.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

RunContext make_context(const LessonSetup& setup, const Invocation& inv) {
  RunContext ctx;
  const CommonFlags& f = inv.flags;
  ctx.device_given = !f.device.empty() && f.device != "auto";
  ctx.device = ctx.device_given ? std::stoi(f.device) : 0;
  ctx.reps = setup.lesson->default_repetitions();
  if (f.repeat) {
    ctx.reps.repeat = *f.repeat;
    ctx.reps.adaptive = false;  // the user asked for exactly this many
  }
  if (f.warmup) ctx.reps.warmup = *f.warmup;
  if (inv.command == Command::all) ctx.reps.adaptive = false;  // the tour keeps each lesson's fixed counts: quick
  ctx.lang = inv.output.lang();
  ctx.timeline = f.timeline;
  ctx.trace_path = f.trace_path;
  ctx.rank = rank_of_process(setup, inv);
  return ctx;
}

TurnSummary summary_of(const GpuTurns& turns, bool queued, double measured_s) {
  if (!queued) return TurnSummary{false, 0.0, measured_s, 0, {}, 0.0};
  const TurnRecord r = turns.record();
  return TurnSummary{true, r.wait_s, r.held_s, r.position, {}, r.taken_at};
}

void stamp_identity(Report& report, const CourseEntry& entry) {
  report.tool_version = kToolVersion;
  report.recorded_at = utc_timestamp_now();
  report.lesson_number = entry.number;
  report.lesson_slug = entry.slug;
  report.lesson_title = Message(entry.title.en);  // the course's table of titles, each in the lesson's catalogue
}

// The preflight's warnings first, then the lesson's own, each once.
void stamp_warnings(Report& report, const DeviceInfo& info) {
  std::vector<Message> warnings = preflight_warnings(info);
  if (LaunchLatch::gave_up()) {
    warnings.push_back(Message(
        "the launch latch could not hold a stream here (no stream memory operations, a tool that serialises the "
        "GPU, or an enqueue that waited for it): copies it would have timed alone were timed as enqueued, launch "
        "included"));
  }
  for (auto& w : report.warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  }
  report.warnings = std::move(warnings);
}

void say(const Invocation& inv, const Message& line) { std::cerr << tr(inv.output.lang(), line) << '\n'; }

}  // namespace

LessonSession::LessonSession(const LessonSetup& setup, const Invocation& inv)
    : setup_(setup), inv_(inv), ctx_(make_context(setup, inv)) {}

Report LessonSession::run() {
  if (ctx_.rank) return measure_once();
  for (;;) {
    try {
      const TurnScope scope;  // Ctrl-Z and fg while waiting or measuring come back here
      return measure_once();
    } catch (const TurnSuspendedError&) {
      say(inv_, "cudalab: stopped (Ctrl-Z): this run gave the GPU back and dropped what it had measured; `fg` "
                "queues again and measures from the start");
      stop_for_terminal();
      say(inv_, "cudalab: continued: queueing again for the GPU");
    } catch (const TurnResumedError&) {
      say(inv_, "cudalab: this run was stopped while it held the GPU, and others may have measured meanwhile: its "
                "figures are dropped; queueing again");
    }
  }
}

// The GPUs a lesson measures on (devices_measured), whose turns are taken in one order so that no
// two runs deadlock.
std::vector<std::string> LessonSession::gpus_to_queue() const {
  std::vector<std::string> gpus;
  for (const int device : devices_measured()) gpus.push_back(queue_name_of_device(device));
  // A lesson whose headline moves when another GPU on its PCIe path measures too takes the turns
  // of those GPUs as well (docs/shared-server.md, "Several GPUs").
  if (setup_.lesson->shares_host_path()) {
    // Asked before the turn: no CUDA context yet (query_device would make one, and a waiting
    // student with a context would count as a process that works beside the one measuring).
    for (const auto& uuid : gpus_sharing_host_path(pci_bus_id_of_device(ctx_.device))) {
      if (std::find(gpus.begin(), gpus.end(), uuid) == gpus.end()) gpus.push_back(uuid);  // its own is there
    }
  }
  return gpus;
}

// The CUDA devices the lesson measures on: its device (a rank's own), or the first N (every visible one when
// the lesson says nullopt).
std::vector<int> LessonSession::devices_measured() const {
  if (ctx_.rank) return {ctx_.device};  // a rank: its own GPU
  const std::optional<int> wanted = setup_.lesson->gpus_measured();
  if (wanted == 1) return {ctx_.device};
  int count = device_count();
  if (wanted) count = std::min(count, std::max(*wanted, 0));
  std::vector<int> devices;
  for (int i = 0; i < count; ++i) devices.push_back(i);
  return devices;
}

QueueOptions LessonSession::queue_options() const {
  QueueOptions options;
  options.lesson = setup_.entry->id();
  options.turn_times = course_turn_times();
  if (inv_.flags.queue_timeout_s > 0) options.timeout_s = inv_.flags.queue_timeout_s;
  options.has_context = [](const std::string& gpu_uuid, long pid) { return has_cuda_context(gpu_uuid, pid); };
  options.words = [lang = inv_.output.lang()](const Message& line) { return tr(lang, line); };
  return options;
}

// Before any CUDA context: the turn on every GPU the lesson measures on (none with --no-queue).
// --device auto on a one-GPU lesson picks the shortest queue and takes a place there in one step.
GpuTurns LessonSession::take_turns() {
  if (ctx_.rank) return take_turn_as_rank();
  if (setup_.lesson->ranks_to_start() > 0) {
    throw UsageError("--ranks: only a lesson run starts ranks (cudalab NN --ranks N), not `all` or live mode");
  }
  const bool automatic = inv_.flags.device == "auto";
  if (inv_.flags.no_queue) {
    if (automatic) ctx_.device = least_busy_device();
    return {};
  }
  const QueueOptions options = queue_options();
  if (automatic && setup_.lesson->gpus_measured() == 1 && !setup_.lesson->shares_host_path()) {
    AutoTurn chosen = take_turn_on_shortest_queue(queue_names_of_devices(), options);
    ctx_.device = static_cast<int>(chosen.index);
    return GpuTurns(std::move(chosen.turn));
  }
  if (automatic) ctx_.device = least_busy_device();
  const std::vector<std::string> gpus = gpus_to_queue();
  if (gpus.size() > devices_measured().size()) {  // said once, where the turns are taken
    say(inv_, msg("cudalab: {lesson} takes turns with the {count} GPUs behind this GPU's PCIe host bridge: a run on "
                  "any of them moves its headline",
                  arg("lesson", setup_.entry->slug), arg("count", gpus.size())));
  }
  return take_gpu_turns(gpus, options);
}

// Its own GPU (its local rank's, unless --device says), the other ranks met through the run's
// folder, then its turn there, once every rank holds its own. Before any CUDA context.
GpuTurns LessonSession::take_turn_as_rank() {
  if (!ctx_.device_given) ctx_.device = device_of_rank(*ctx_.rank, device_count());
  rendezvous_.emplace(meet_ranks(*ctx_.rank, queue_name_of_device(ctx_.device)));
  ctx_.rendezvous = &*rendezvous_;
  if (inv_.flags.no_queue) return {};
  return cudalab::take_turn_as_rank(*rendezvous_, queue_options());
}

// --wait-idle: looks at the GPU in windows of half a second until no other process worked in one
// (an idle context does not count), or the time is up (then the lesson runs anyway and its report
// says who was there). Returns the last snapshot.
GpuActivity LessonSession::wait_for_idle_gpu(const DeviceInfo& info) const {
  constexpr auto kWindow = std::chrono::milliseconds(500);
  GpuActivity activity = query_gpu_activity(info.pci_bus_id);
  const int wait_idle_s = inv_.flags.wait_idle_s;
  if (wait_idle_s <= 0 || working_others(activity).value_or(0) == 0) return activity;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_idle_s);
  say(inv_, msg("cudalab: waiting up to {seconds} s for {count} other process(es) to stop working on the GPU",
                arg("seconds", wait_idle_s), arg("count", *working_others(activity))));
  while (std::chrono::steady_clock::now() < deadline) {
    TenantLedger window(info.pci_bus_id);
    window.update();
    sleep_unless_interrupted(kWindow);  // a signal ends the wait at once
    window.update();
    activity = query_gpu_activity(info.pci_bus_id);
    activity.tenants = window.tenants();
    if (working_others(activity).value_or(0) == 0) break;
  }
  return activity;
}

Report LessonSession::measure_once() {
  // The turn is held only while the lesson measures: taken before the CUDA context exists (a
  // waiting student is invisible to NVML), given back before anything is rendered.
  GpuTurns turns = take_turns();
  (void)take_phases();  // only this attempt's phases go into its report
  for (const auto& gpu : gpus_to_queue()) announce_gpu_presence(gpu);
  const DeviceInfo info = in_phase("context", [&] {
    use_device(ctx_.device);
    return query_device(ctx_.device);
  });
  ClassroomSnapshot classroom;
  classroom.before = wait_for_idle_gpu(info);
  classroom.thread_pinned = pin_thread_near_gpu(info.pci_bus_id);
  struct ProgressLine {  // erased however the lesson ends
    explicit ProgressLine(const std::string& what) { progress::begin(what); }
    ~ProgressLine() { progress::end(); }
  } progress_line(fmt::format("cudalab {:02d} {}", setup_.entry->number, setup_.entry->slug));
  Report report;
  const auto started = std::chrono::steady_clock::now();
  {
    const MeasuringScope measuring;                 // others' watches count this process as working
    const GpuProcessWatch watch(info.pci_bus_id);  // another student may come and go meanwhile
    report = setup_.lesson->run(ctx_);
    classroom.busiest_during = watch.busiest();
  }
  const double measured_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The context goes before the turn: a process that tore it down as it exited, after giving the
  // turn back, moved the next student's figures (lab H100: a class's first student read 03 at
  // 1.63x, against 2.23x alone, while the run before it exited) and no process list showed why.
  in_phase("release", [&] { release_devices(devices_measured()); });
  // A run that measured to its end teaches the queue how long this lesson holds the GPU.
  interrupted() ? turns.release() : turns.release_finished();
  report.turn = summary_of(turns, !inv_.flags.no_queue, measured_s);
  report.turn->phases = take_phases();
  classroom.turn_shared = turns.record().shared;
  throw_if_interrupted();  // a lesson that finished its last measurement after Ctrl-C
  stamp(report, info, classroom);
  return report;
}

void LessonSession::stamp(Report& report, const DeviceInfo& info, ClassroomSnapshot& classroom) const {
  stamp_identity(report, *setup_.entry);
  stamp_provenance(report, gpus_to_queue());  // who, where, the GPUs it held and the job: inside the digest
  classroom.after = query_gpu_activity(info.pci_bus_id);
  classroom.link_after = query_pcie_link(info.pci_bus_id);
  classroom.host_load = host_load_average();
  classroom.host_cpus = static_cast<int>(std::thread::hardware_concurrency());
  report.environment = classroom_items(info, classroom);
  const bool listed = std::any_of(report.devices.begin(), report.devices.end(),
                                  [&](const DeviceSummary& d) { return d.index == ctx_.device; });
  if (!listed) report.devices.insert(report.devices.begin(), summary_of(info));
  stamp_warnings(report, info);
  seal(report);  // last: the digest covers everything stamped above
}

Report run_stamped_lesson(const LessonSetup& setup, const Invocation& inv) { return LessonSession(setup, inv).run(); }

}  // namespace cudalab
