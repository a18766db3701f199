#include "commands.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include <iostream>

#include <fmt/format.h>

#include "common/cuda/device.hpp"
#include "common/bench/errors.hpp"
#include "common/bench/interrupt.hpp"
#include "output.hpp"
#include "common/cuda/preflight.hpp"
#include "common/report/integrity.hpp"
#include "common/report/report_json.hpp"
#include "common/report/text_format.hpp"
#include "common/bench/version.hpp"

namespace cudalab {

namespace {

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
  ctx.lang = o.lang.empty() ? lang_from_environment() : parse_lang(o.lang);
  ctx.timeline = o.timeline;
  ctx.trace_path = o.trace_path;
  return ctx;
}

// --wait-idle: polls NVML until no other process holds a context on the GPU, or the time is up
// (then the lesson runs anyway and its report says who was there). Returns the last snapshot.
GpuActivity wait_for_idle_gpu(const DeviceInfo& info, int wait_idle_s) {
  GpuActivity activity = query_gpu_activity(info.pci_bus_id);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_idle_s);
  bool announced = false;
  while (other_processes(activity).value_or(0) > 0 && std::chrono::steady_clock::now() < deadline) {
    if (!announced) {
      std::cerr << fmt::format("cudalab: waiting up to {} s for {} other process(es) to leave the GPU\n", wait_idle_s,
                               *other_processes(activity));
      announced = true;
    }
    throw_if_interrupted();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    activity = query_gpu_activity(info.pci_bus_id);
  }
  return activity;
}

// Runs one lesson and stamps what every report carries: identity, version, time, the device it
// ran on (first; a lesson may list more, as device-query does) and the preflight warnings, so
// lessons only fill in their own findings.
Report run_lesson(const LessonRun& run, const RunContext& ctx, int wait_idle_s) {
  use_device(ctx.device);
  const DeviceInfo info = query_device(ctx.device);
  ClassroomSnapshot classroom;
  classroom.before = wait_for_idle_gpu(info, wait_idle_s);
  classroom.thread_pinned = pin_thread_near_gpu(info.pci_bus_id);
  Report report = run.lesson->run(ctx);
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
  for (auto& w : report.warnings) {
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
  }
  report.warnings = std::move(warnings);
  seal(report);  // last: the digest covers everything stamped above
  return report;
}

std::string check_tally(const Report& r) {
  int passed = 0;
  for (const auto& c : r.checks) passed += c.passed ? 1 : 0;
  return fmt::format("{}/{} {}", passed, r.checks.size(), r.verify_passed() ? (r.expect_passed() ? "✓" : "✓ (expect ✗)") : "✗ VERIFY");
}

}  // namespace

void add_show_options(CLI::App& show, ShowOptions& o) {
  show.add_option("RUN.json", o.path, "a run saved with --json (or a reference run from course-notes/runs/)")
      ->required()
      ->type_name("FILE");
  add_choice_option(show, "--format", o.output.format, {"text", "json"}, "output form");
  show.add_flag("--stable", o.output.stable, "print only what graders may diff");
  add_choice_option(show, "--color", o.output.color, {"auto", "always", "never"}, "colour");
  add_choice_option(show, "--lang", o.output.lang, {"zh", "en"}, "language of the notes");
  add_output_file_option(show, "--trace", o.output.trace_path,
                         "write the run's timelines as Chrome trace events to FILE.json", /*allow_stdout=*/false);
}

int print_course_list() {
  std::cout << "cudalab " << kVersion << " — GPU concurrency, one experiment per lesson\n\n";
  for (const auto& e : course()) {
    std::cout << fmt::format("  {:02d}  {}  {}{}\n", e.number, pad_right(e.slug, 20), e.summary,
                             e.make ? "" : "  (not built yet)");
  }
  std::cout << "\nrun a lesson by name or number: cudalab stream-overlap, cudalab 03, cudalab 3\n";
  return to_int(ExitCode::success);
}

int run_one(const LessonRun& run, const CommonOptions& o) {
  const RunContext ctx = make_context(o, *run.lesson);
  const Report report = run_lesson(run, ctx, o.wait_idle_s);
  emit_report(report, o);
  return exit_code_for(report, o.strict);
}

int run_all(const std::vector<LessonRun>& runs, const CommonOptions& o) {
  (void)device_count();  // no GPU: one waived line, not one per lesson
  std::vector<Report> reports;
  std::vector<std::string> failures(runs.size());
  int exit_code = to_int(ExitCode::success);
  const bool json_only = o.format == "json" || o.json_path == "-";
  CommonOptions per_lesson = o;
  per_lesson.json_path.clear();  // the JSON file holds all runs, written once at the end
  per_lesson.trace_path.clear();  // so does the trace file
  for (std::size_t i = 0; i < runs.size(); ++i) {
    try {
      const RunContext ctx = make_context(o, *runs[i].lesson);
      Report report = run_lesson(runs[i], ctx, o.wait_idle_s);
      if (!json_only) {
        emit_report(report, per_lesson);
        std::cout << '\n';
      }
      exit_code = std::max(exit_code, exit_code_for(report, o.strict));
      reports.push_back(std::move(report));
    } catch (const RuntimeError& e) {
      failures[i] = e.what();
      std::cerr << fmt::format("cudalab: lesson {:02d} {}: CUDA error: {}\n", runs[i].entry->number, runs[i].entry->slug, e.what());
      exit_code = std::max(exit_code, to_int(ExitCode::runtime));
    }
  }
  emit_reports_json(reports, o);
  emit_trace(reports, o);
  if (json_only) return exit_code;

  std::cout << (o.stable ? "summary\n" : "── summary " + repeat_text("─", 69) + "\n\n");
  std::size_t headline_width = 0;
  for (const auto& rep : reports) headline_width = std::max(headline_width, display_width(rep.headline));
  std::size_t r = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto* e = runs[i].entry;
    if (!failures[i].empty()) {
      std::cout << fmt::format("  {:02d} {}  runtime error\n", e->number, pad_right(e->slug, 20));
      continue;
    }
    const Report& rep = reports[r++];
    if (o.stable) {
      std::cout << fmt::format("lesson {:02d} {} verify={} expect={}\n", e->number, e->slug,
                               rep.verify_passed() ? "pass" : "FAIL", rep.expect_passed() ? "pass" : "FAIL");
    } else {
      std::cout << fmt::format("  {:02d} {}  {}  {}\n", e->number, pad_right(e->slug, 20), pad_right(rep.headline, headline_width),
                               check_tally(rep));
    }
  }
  return exit_code;
}

int show_saved_run(const ShowOptions& o) {
  std::vector<SavedRun> runs;
  try {
    runs = read_saved_runs(o.path);
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
