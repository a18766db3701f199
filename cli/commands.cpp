#include "commands.hpp"

#include <algorithm>
#include <chrono>
#include <thread>


#include <iostream>

#include <fmt/format.h>

#include "common/gpu/device.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/progress.hpp"
#include "output.hpp"
#include "common/gpu/launch_latch.hpp"
#include "common/gpu/preflight.hpp"
#include "common/report/predict.hpp"
#include "common/report/integrity.hpp"
#include "cli/graders.hpp"
#include "common/report/render_summary.hpp"
#include "common/report/translate.hpp"
#include "common/report/report_json.hpp"
#include "common/core/text_format.hpp"
#include "common/core/version.hpp"

namespace cudalab {

RunContext make_context(const CommonOptions& o, const Lesson& lesson) {
  RunContext ctx;
  ctx.device = o.device >= 0 ? o.device : 0;
  ctx.device_given = o.device >= 0;
  ctx.reps = lesson.default_repetitions();
  if (o.repeat > 0) {
    ctx.reps.repeat = o.repeat;
    ctx.reps.adaptive = false;  // the user asked for exactly this many
  }
  if (o.warmup >= 0) ctx.reps.warmup = o.warmup;
  ctx.lang = plan_output(o).style.lang;
  ctx.timeline = o.timeline;
  ctx.trace_path = o.trace_path;
  return ctx;
}

// --wait-idle: polls NVML until no other process holds a context on the GPU, or the time is up
// (then the lesson runs anyway and its report says who was there). Returns the last snapshot.
static GpuActivity wait_for_idle_gpu(const DeviceInfo& info, int wait_idle_s) {
  GpuActivity activity = query_gpu_activity(info.pci_bus_id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_idle_s);
  bool announced = false;
  while (other_processes(activity).value_or(0) > 0 && std::chrono::steady_clock::now() < deadline) {
    if (!announced) {
      std::cerr << fmt::format("cudalab: waiting up to {} s for {} other process(es) to leave the GPU\n", wait_idle_s,
                               *other_processes(activity));
      announced = true;
    }
    sleep_unless_interrupted(std::chrono::milliseconds(200));  // a signal ends the wait at once
    activity = query_gpu_activity(info.pci_bus_id);
  }
  return activity;
}

// Runs one lesson and stamps what every report carries: identity, version, time, the device it
// ran on (first; a lesson may list more, as the device query does) and the preflight warnings, so
// lessons only fill in their own findings.
Report run_lesson(const LessonRun& run, const RunContext& ctx, int wait_idle_s) {
  use_device(ctx.device);
  const DeviceInfo info = query_device(ctx.device);
  ClassroomSnapshot classroom;
  classroom.before = wait_for_idle_gpu(info, wait_idle_s);
  classroom.thread_pinned = pin_thread_near_gpu(info.pci_bus_id);
  struct ProgressLine {  // erased however the lesson ends
    explicit ProgressLine(const std::string& what) { progress::begin(what); }
    ~ProgressLine() { progress::end(); }
  } progress_line(fmt::format("cudalab {:02d} {}", run.entry->number, run.entry->slug));
  Report report;
  {
    const GpuProcessWatch watch(info.pci_bus_id);  // another student may come and go meanwhile
    report = run.lesson->run(ctx);
    classroom.busiest_during = watch.busiest();
  }
  throw_if_interrupted();  // a lesson that finished its last measurement after Ctrl-C
  report.tool_version = kToolVersion;
  report.recorded_at = utc_timestamp_now();
  report.lesson_number = run.entry->number;
  report.lesson_slug = run.entry->slug;
  report.lesson_title = run.entry->title;
  classroom.after = query_gpu_activity(info.pci_bus_id);
  classroom.link_after = query_pcie_link(info.pci_bus_id);
  classroom.host_load = host_load_average();
  classroom.host_cpus = static_cast<int>(std::thread::hardware_concurrency());
  report.environment = classroom_items(info, classroom);
  const bool listed = std::any_of(report.devices.begin(), report.devices.end(),
                                  [&](const DeviceSummary& d) { return d.index == ctx.device; });
  if (!listed) report.devices.insert(report.devices.begin(), summary_of(info));
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
  seal(report);  // last: the digest covers everything stamped above
  return report;
}

void add_show_options(CLI::App& show, ShowOptions& o) {
  show.add_option("RUN", o.path, "a run saved with --json, or a lesson (03, or its name) for its reference run")
      ->required()
      ->type_name("RUN");
  add_choice_option(show, "--format", o.output.format, {"text", "json"}, "output form");
  show.add_flag("--stable", o.output.stable, "print only what graders may diff");
  add_portable_flag(show, o.output);
  add_choice_option(show, "--color", o.output.color, {"auto", "always", "never"}, "colour");
  add_choice_option(show, "--lang", o.output.lang, {"zh", "en"}, "language of the notes");
  add_picture_options(show, o.output);
  show.add_flag("--pause", o.output.pause, "wait for Enter between sections: rehearse a lecture from a recorded run");
  add_output_file_option(show, "--trace", o.output.trace_path,
                         "write the run's timelines as Chrome trace events to FILE.json", /*allow_stdout=*/false);
}

int print_course_list(const std::string& lang_flag) {
  const Lang lang = lang_flag.empty() ? lang_from_environment() : parse_lang(lang_flag);
  std::cout << tr(lang, fmt::format("cudalab {} — GPU concurrency, one experiment per lesson", kVersion)) << "\n\n";
  const std::size_t indent = 2 + 2 + 2 + 20 + 2;  // "  NN  slug                  "
  const std::size_t width = std::max<std::size_t>(indent + 24, terminal_width());
  for (const auto& e : course()) {
    const auto lines = wrap_text(tr(lang, e.summary) + (e.make ? "" : tr(lang, "  (not built yet)")), width - indent);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::cout << (i == 0 ? fmt::format("  {:02d}  {}  ", e.number, pad_right(e.slug, 20)) : std::string(indent, ' '))
                << lines[i] << '\n';
    }
  }
  const CourseEntry& example = course().at(std::min<std::size_t>(2, course().size() - 1));
  std::cout << '\n'
            << tr(lang, fmt::format("run a lesson by name or number: cudalab {}, cudalab {:02d}, cudalab {}", example.slug,
                                    example.number, example.number))
            << '\n';
  return to_int(ExitCode::success);
}

// --predict: the lesson's questions, answered from --answers FILE or on the terminal, before
// anything is measured.
std::vector<Guess> ask_predictions(const LessonRun& run, const CommonOptions& o, Lang lang) {
  if (!o.predict) {
    if (!o.answers_path.empty()) throw UsageError("--answers: only with --predict");
    return {};
  }
  const auto questions = questions_for(lang, fmt::format("{:02d}-{}", run.entry->number, run.entry->slug));
  if (questions.empty()) {
    throw UsageError(fmt::format("--predict: lesson {:02d} asks no questions yet; try lesson 03 or 04", run.entry->number));
  }
  if (!o.answers_path.empty()) return read_answers(o.answers_path, questions);
  if (!stdin_is_terminal()) throw UsageError("--predict: needs a terminal to ask on, or --answers FILE");
  return ask(questions, std::cin, std::cerr);
}

// Progress goes to stderr only when a person watches the text form there.
void enable_progress(const CommonOptions& o) {
  progress::enable(plan_output(o).progress);
}

// Without a GPU a student can still read what the lesson showed on the lab's.
std::string reference_hint(const CourseEntry* entry) {
  if (entry != nullptr) {
    return fmt::format("`cudalab show {:02d}` shows this lesson's run recorded on the lab GPU", entry->number);
  }
  return fmt::format("`cudalab show NN` ({:02d} to {:02d}) shows each lesson's run recorded on the lab GPU",
                     course().front().number, course().back().number);
}

int run_one(const LessonRun& run, const CommonOptions& o) {
  enable_progress(o);
  const RunContext ctx = make_context(o, *run.lesson);
  std::vector<Guess> guesses = ask_predictions(run, o, ctx.lang);
  Report report;
  try {
    report = run_lesson(run, ctx, o.wait_idle_s);
  } catch (const NoGpuError& e) {
    throw NoGpuError(std::string(e.what()) + "; " + reference_hint(run.entry));
  }
  report.guesses = std::move(guesses);
  emit_report(report, o);
  return exit_code_for(report, o.strict);
}

int run_all(const std::vector<LessonRun>& runs, const CommonOptions& o) {
  enable_progress(o);
  try {
    (void)device_count();  // no GPU: one waived line, not one per lesson
  } catch (const NoGpuError& e) {
    throw NoGpuError(std::string(e.what()) + "; " + reference_hint(nullptr));
  }
  std::vector<Report> reports;
  std::vector<std::string> failures(runs.size());  // why a lesson did not run; empty when it did
  int exit_code = to_int(ExitCode::success);
  const bool json_only = plan_output(o).form == OutputPlan::Stdout::json;
  CommonOptions per_lesson = o;
  per_lesson.json_path.clear();  // the JSON file holds all runs, written once at the end
  per_lesson.trace_path.clear();  // so does the trace file
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].preset_error.empty()) {
      failures[i] = "preset error";
      std::cerr << fmt::format("cudalab: lesson {:02d} {}: {}\n", runs[i].entry->number, runs[i].entry->slug,
                               runs[i].preset_error);
      exit_code = std::max(exit_code, to_int(ExitCode::usage));
      continue;
    }
    try {
      RunContext ctx = make_context(o, *runs[i].lesson);
      ctx.reps.adaptive = false;  // the tour of every lesson keeps each lesson's fixed counts: quick
      Report report = run_lesson(runs[i], ctx, o.wait_idle_s);
      if (!json_only) {
        emit_report(report, per_lesson);
        std::cout << '\n';
      }
      exit_code = std::max(exit_code, exit_code_for(report, o.strict));
      reports.push_back(std::move(report));
    } catch (const WaivedError& e) {
      // A lesson this machine cannot run (two GPUs wanted, one found) is skipped; the others count.
      failures[i] = "waived";
      std::cerr << fmt::format("cudalab: lesson {:02d} {}: waived: {}\n", runs[i].entry->number, runs[i].entry->slug,
                               e.what());
    } catch (const RuntimeError& e) {
      failures[i] = "runtime error";
      std::cerr << fmt::format("cudalab: lesson {:02d} {}: CUDA error: {}\n", runs[i].entry->number, runs[i].entry->slug, e.what());
      exit_code = std::max(exit_code, to_int(ExitCode::runtime));
    }
  }
  emit_reports_json(reports, o);
  emit_trace(reports, o);
  if (json_only) return exit_code;

  std::vector<TourRow> rows;
  std::size_t r = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    rows.push_back({runs[i].entry->number, runs[i].entry->slug, failures[i].empty() ? &reports[r++] : nullptr,
                    failures[i]});
  }
  const auto form = plan_output(o).form;
  std::cout << render_tour_summary(rows, form == OutputPlan::Stdout::portable ? TourForm::portable
                                         : form == OutputPlan::Stdout::stable ? TourForm::stable
                                                                              : TourForm::text,
                                   terminal_width());
  return exit_code;
}

int show_saved_run(const ShowOptions& o) {
  std::vector<SavedRun> runs;
  try {
    runs = load_run_argument(o.path);
  } catch (const UsageError& e) {
    throw UsageError(std::string("show: ") + e.what());
  }
  std::vector<Report> reports;
  int exit_code = to_int(ExitCode::success);
  for (auto& run : runs) {
    CommonOptions one = o.output;
    one.trace_path.clear();
    emit_report(run.report, one, /*recorded=*/true);
    if (run.integrity.state == Integrity::modified) {
      std::cerr << "cudalab: show: " << printable(run.source) << ": " << run.integrity.describe() << '\n';
    }
    // Just as the live run did: a failed verify check (or a run edited after it was made) fails.
    if (!run.report.verify_passed() || run.integrity.state == Integrity::modified) {
      exit_code = to_int(ExitCode::verify_failed);
    }
    reports.push_back(std::move(run.report));
  }
  emit_trace(reports, o.output);
  return exit_code;
}

}  // namespace cudalab
