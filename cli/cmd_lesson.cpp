// A lesson run: `cudalab 03 [flags]` (or by name). One subcommand per built lesson, its flags
// bound to a Lesson object; the run stamps what every report carries and emits it once.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "cli/preset_merge.hpp"
#include "cli/ranks.hpp"
#include "common/core/errors.hpp"
#include "common/core/gpu_presence.hpp"
#include "common/core/gpu_queue.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/progress.hpp"
#include "common/core/text_format.hpp"
#include "common/core/version.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/gpu/launch_latch.hpp"
#include "common/gpu/preflight.hpp"
#include "common/report/integrity.hpp"
#include "common/report/predict.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

RunContext make_context(const LessonSetup& setup, const Invocation& inv) {
  RunContext ctx;
  const CommonFlags& f = inv.flags;
  ctx.device_given = !f.device.empty();
  ctx.device = f.device == "auto" ? least_busy_device() : ctx.device_given ? std::stoi(f.device) : 0;
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
  return ctx;
}

// --wait-idle: polls NVML until no other process holds a context on the GPU, or the time is up
// (then the lesson runs anyway and its report says who was there). Returns the last snapshot.
GpuActivity wait_for_idle_gpu(const DeviceInfo& info, int wait_idle_s, Lang lang) {
  GpuActivity activity = query_gpu_activity(info.pci_bus_id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_idle_s);
  bool announced = false;
  while (other_processes(activity).value_or(0) > 0 && std::chrono::steady_clock::now() < deadline) {
    if (!announced) {
      std::cerr << tr(lang, fmt::format("cudalab: waiting up to {} s for {} other process(es) to leave the GPU",
                                        wait_idle_s, *other_processes(activity)))
                << '\n';
      announced = true;
    }
    sleep_unless_interrupted(std::chrono::milliseconds(50));  // a signal ends the wait at once
    activity = query_gpu_activity(info.pci_bus_id);
  }
  return activity;
}

// The GPUs a lesson measures on: its device, or the first N (every visible one when the lesson
// says nullopt), whose turns are taken in one order so that no two runs deadlock.
std::vector<std::string> gpus_measured(const LessonSetup& setup, const RunContext& ctx) {
  const std::optional<int> wanted = setup.lesson->gpus_measured();
  if (wanted == 1) return {queue_name_of_device(ctx.device)};
  std::vector<std::string> all = queue_names_of_devices();
  if (wanted) all.resize(std::min<std::size_t>(all.size(), static_cast<std::size_t>(std::max(*wanted, 0))));
  return all;
}

QueueOptions queue_options(const LessonSetup& setup, const Invocation& inv) {
  QueueOptions options;
  options.lesson = setup.entry->id();
  options.turn_times = recorded_turn_times();
  if (inv.flags.queue_timeout_s > 0) options.timeout_s = inv.flags.queue_timeout_s;
  return options;
}

// Before any CUDA context: the turn on every GPU the lesson measures on (none with --no-queue).
GpuTurns take_turns(const LessonSetup& setup, const Invocation& inv, const std::vector<std::string>& gpus) {
  if (inv.flags.no_queue) return {};
  return take_gpu_turns(gpus, queue_options(setup, inv));
}

// Where this run measures, and its turn there: the lesson's GPUs, or, for one rank of a run of
// processes, its own GPU after it has met the other ranks (cli/ranks.hpp). Before any context.
struct Placement {
  std::vector<std::string> gpus;
  std::optional<Rendezvous> rendezvous;
  GpuTurns turns;
};

Placement place_run(const LessonSetup& setup, const Invocation& inv, RunContext& ctx) {
  Placement place;
  ctx.rank = rank_of_process(setup, inv);
  if (!ctx.rank) {
    if (setup.lesson->ranks_to_start() > 0) {
      throw UsageError("--ranks: only a lesson run starts ranks (cudalab NN --ranks N), not `all` or live mode");
    }
    place.gpus = gpus_measured(setup, ctx);
    place.turns = take_turns(setup, inv, place.gpus);
    return place;
  }
  if (!ctx.device_given) ctx.device = device_of_rank(*ctx.rank, device_count());
  place.gpus = {queue_name_of_device(ctx.device)};
  place.rendezvous.emplace(meet_ranks(*ctx.rank, place.gpus.front()));
  if (!inv.flags.no_queue) place.turns = take_turn_as_rank(*place.rendezvous, queue_options(setup, inv));
  return place;
}

TurnSummary summary_of(const GpuTurns& turns, bool queued, double measured_s) {
  if (!queued) return TurnSummary{false, 0.0, measured_s, 0};
  const TurnRecord r = turns.record();
  return TurnSummary{true, r.wait_s, r.held_s, r.position};
}

void stamp_identity(Report& report, const CourseEntry& entry) {
  report.tool_version = kToolVersion;
  report.recorded_at = utc_timestamp_now();
  report.lesson_number = entry.number;
  report.lesson_slug = entry.slug;
  report.lesson_title = entry.title;
}

// The preflight's warnings first, then the lesson's own, each once.
void stamp_warnings(Report& report, const DeviceInfo& info) {
  std::vector<std::string> warnings = preflight_warnings(info);
  if (LaunchLatch::gave_up()) {
    warnings.push_back(
        "the launch latch could not hold a stream here (no stream memory operations, a tool that serialises the "
        "GPU, or an enqueue that waited for it): copies it would have timed alone were timed as enqueued, launch "
        "included");
  }
  for (auto& w : report.warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  }
  report.warnings = std::move(warnings);
}

// --predict: the lesson's questions, answered from --answers FILE or on the terminal, before
// anything is measured.
std::vector<Guess> ask_predictions(const LessonSetup& setup, const Invocation& inv) {
  if (!inv.flags.predict) return {};
  const auto questions = questions_for(inv.output.lang(), setup.entry->id());
  if (questions.empty()) {
    throw UsageError(fmt::format("--predict: lesson {:02d} asks no questions yet; try lesson 03 or 04", setup.entry->number));
  }
  if (!inv.flags.answers_path.empty()) return read_answers(inv.flags.answers_path, questions);
  if (!stdin_is_terminal()) throw UsageError("--predict: needs a terminal to ask on, or --answers FILE");
  return ask(questions, std::cin, std::cerr);
}

}  // namespace

std::string reference_hint(const CourseEntry* entry) {
  if (entry != nullptr) {
    return fmt::format("`cudalab show {:02d}` shows this lesson's run recorded on the lab GPU", entry->number);
  }
  return fmt::format("`cudalab show NN` ({:02d} to {:02d}) shows each lesson's run recorded on the lab GPU",
                     course().front().number, course().back().number);
}

// How long each lesson usually holds the GPU, from the turns its reference run recorded: the
// queue's estimate of a wait and its rule for a stuck turn read them.
TurnTimes recorded_turn_times() {
  TurnTimes times;
  for (const auto& entry : course()) {
    const auto text = reference_run(entry.id());
    if (!text) continue;
    try {
      for (const auto& run : parse_saved_runs(std::string(*text), entry.id())) {
        if (run.report.turn) times.by_lesson[entry.id()] = run.report.turn->held_s;
      }
    } catch (const UsageError&) {
      // a reference run this build cannot read gives no estimate; the queue still works
    }
  }
  return times;
}

Report run_stamped_lesson(const LessonSetup& setup, const Invocation& inv) {
  RunContext ctx = make_context(setup, inv);
  // The turn is held only while the lesson measures: taken before the CUDA context exists (a
  // waiting student is invisible to NVML), given back before anything is rendered.
  Placement place = place_run(setup, inv, ctx);
  if (place.rendezvous) ctx.rendezvous = &*place.rendezvous;
  GpuTurns& turns = place.turns;
  for (const auto& gpu : place.gpus) announce_gpu_presence(gpu);
  use_device(ctx.device);
  const DeviceInfo info = query_device(ctx.device);
  ClassroomSnapshot classroom;
  classroom.before = wait_for_idle_gpu(info, inv.flags.wait_idle_s, inv.output.lang());
  classroom.thread_pinned = pin_thread_near_gpu(info.pci_bus_id);
  struct ProgressLine {  // erased however the lesson ends
    explicit ProgressLine(const std::string& what) { progress::begin(what); }
    ~ProgressLine() { progress::end(); }
  } progress_line(fmt::format("cudalab {:02d} {}", setup.entry->number, setup.entry->slug));
  Report report;
  const auto started = std::chrono::steady_clock::now();
  {
    const MeasuringScope measuring;                 // others' watches count this process as working
    const GpuProcessWatch watch(info.pci_bus_id);  // another student may come and go meanwhile
    report = setup.lesson->run(ctx);
    classroom.busiest_during = watch.busiest();
  }
  const double measured_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  turns.release();
  report.turn = summary_of(turns, !inv.flags.no_queue, measured_s);
  throw_if_interrupted();  // a lesson that finished its last measurement after Ctrl-C
  stamp_identity(report, *setup.entry);
  classroom.after = query_gpu_activity(info.pci_bus_id);
  classroom.link_after = query_pcie_link(info.pci_bus_id);
  classroom.host_load = host_load_average();
  classroom.host_cpus = static_cast<int>(std::thread::hardware_concurrency());
  report.environment = classroom_items(info, classroom);
  const bool listed = std::any_of(report.devices.begin(), report.devices.end(),
                                  [&](const DeviceSummary& d) { return d.index == ctx.device; });
  if (!listed) report.devices.insert(report.devices.begin(), summary_of(info));
  stamp_warnings(report, info);
  seal(report);  // last: the digest covers everything stamped above
  return report;
}

CLI::App* add_lesson_subcommand(CLI::App& parent, const CourseEntry& entry, CommandSetup& setup, Command command) {
  setup.lesson_pool.push_back(LessonSetup{&entry, entry.make(), {}, {}});
  LessonSetup* pooled = &setup.lesson_pool.back();
  CLI::App* sub = parent.add_subcommand(entry.slug, fmt::format("{:02d} · {} — {}", entry.number, entry.title, entry.summary));
  for (const auto& name : entry.names()) {
    if (name != entry.slug) sub->alias(name);
  }
  sub->footer(help_footer());
  add_lesson_options(*sub, *pooled->lesson);
  std::vector<std::string> common = lesson_flag_names();
  if (command == Command::live) common.erase(std::find(common.begin(), common.end(), "live"));
  add_common_options(*sub, setup.inv.flags, common);
  add_config_option(*sub, setup.config_path);
  sub->callback([&setup, pooled, sub, command] {
    setup.inv.command = command;
    setup.inv.lessons.clear();
    setup.inv.lessons.push_back(std::move(*pooled));
    setup.parsed = sub;
  });
  return sub;
}

void setup_lessons(CLI::App& app, CommandSetup& setup) {
  for (const auto& entry : course()) {
    if (entry.make != nullptr) add_lesson_subcommand(app, entry, setup, Command::lesson);
  }
}

int run_lesson_command(Invocation& inv) {
  if (inv.flags.print_config) {
    std::cout << effective_config(inv);
    return to_int(ExitCode::success);
  }
  LessonSetup& setup = inv.lesson();
  const std::optional<RankEnvironment> rank = rank_of_process(setup, inv);
  const bool reports = !rank || rank->rank == 0;  // rank 0 reports for every rank
  Report report;
  std::vector<Guess> guesses;
  try {
    if (!rank && setup.lesson->ranks_to_start() > 0) return launch_ranks(setup, inv);
    progress::enable(inv.output.progress && reports);
    if (reports) guesses = ask_predictions(setup, inv);
    report = run_stamped_lesson(setup, inv);
  } catch (const NoGpuError& e) {
    throw NoGpuError(std::string(e.what()) + "; " + reference_hint(setup.entry));
  }
  if (!reports) return to_int(ExitCode::success);
  report.guesses = std::move(guesses);
  emit_report(report, inv.output);
  return exit_code_for(report, inv.flags.strict);
}

}  // namespace cudalab
