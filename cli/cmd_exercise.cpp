// `cudalab exercise`: code the student writes, on the lesson's bench, in rustlings' manners.
//
//   cudalab exercise list          every exercise and how far the student got
//   cudalab exercise 03            first time: writes the starter; then: compiles the student's
//                                  file (before the GPU turn), runs it beside the lab's own
//                                  variants and explains what the GPU did with it
//   cudalab exercise 03 --hint     the next hint
//   cudalab exercise 03 --watch    again whenever the file is saved
//
// The run is a lesson run (cli/lesson_session.hpp): the queue's turn, the stamp, the seal and
// every output form are the lesson's. What compiles and runs the student's code is
// common/exercise/; what the bench measures and says is the lesson's folder.
#include <sys/stat.h>

#include <iostream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/exercise/source_check.hpp"
#include "common/exercise/toolchain.hpp"
#include "common/gpu/device.hpp"
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

void say(const Invocation& inv, const Message& line) { std::cerr << tr(inv.output.lang(), line) << '\n'; }
void print(const Invocation& inv, const Message& line) { std::cout << tr(inv.output.lang(), line) << '\n'; }

std::string number_of(const ExerciseDescription& e) { return fmt::format("{:02d}", e.lesson_number); }

std::vector<std::string> exercise_flag_names() {
  std::vector<std::string> names;
  for (const auto& name : lesson_flag_names(false)) {
    if (name != "live" && name != "pause") names.push_back(name);
  }
  return names;
}

void add_exercise_options(CLI::App& sub, Invocation::ExerciseOptions& options) {
  const std::string group = "Exercise options";
  describe_option(sub.add_option("--dir", options.dir, "your exercise folder (default cudalab-exercises)")
                      ->type_name("DIR")
                      ->group(group),
                  "your exercise folder (default cudalab-exercises)");
  describe_option(sub.add_flag("--hint", options.hint, "the next hint for this exercise")->group(group),
                  "the next hint for this exercise");
  describe_option(sub.add_flag("--watch", options.watch, "check again whenever the file is saved (Ctrl-C stops)")
                      ->group(group),
                  "check again whenever the file is saved (Ctrl-C stops)");
  describe_option(sub.add_option("--time-limit", options.time_limit_s, "seconds your code may run before it is killed")
                      ->check(CLI::Range(1.0, 120.0))
                      ->type_name("SECONDS")
                      ->group(group),
                  "seconds your code may run before it is killed");
}

void add_exercise_subcommand(CLI::App& parent, const ExerciseDescription& e, CommandSetup& setup) {
  const CourseEntry* entry = find_course_entry(std::to_string(e.lesson_number));
  if (entry == nullptr || e.make == nullptr) return;  // a lesson left out of this build
  setup.lesson_pool.push_back(LessonSetup{entry, e.make(), {}, {}, {}});
  LessonSetup* pooled = &setup.lesson_pool.back();
  CLI::App* sub = parent.add_subcommand(e.lesson_slug, fmt::format("{} · {}", number_of(e), e.goal.en()));
  for (const auto& name : e.names()) {
    if (name != e.lesson_slug) sub->alias(name);
  }
  sub->footer(help_footer());
  add_lesson_options(*sub, *pooled->lesson);
  add_common_options(*sub, setup.inv.flags, exercise_flag_names());
  add_config_option(*sub, setup.config_path);
  add_exercise_options(*sub, setup.inv.exercise);
  sub->callback([setup, pooled, sub, exercise = &e] {
    setup.inv.command = Command::exercise;
    setup.inv.exercise.exercise = exercise;
    setup.inv.lessons.clear();
    setup.inv.lessons.push_back(std::move(*pooled));
    setup.parsed = sub;
  });
}

// ---- list, the first time, hints ------------------------------------------------------------

int print_exercise_list(const Workspace& ws, const Invocation& inv) {
  const Lang lang = inv.output.lang();
  std::cout << tr(lang, msg("exercises in {folder}:", arg("folder", ws.folder()))) << '\n';
  for (const auto& e : registered_exercises()) {
    const ExerciseState state = ws.state(e);
    Message status = status_words(state.status);
    if (state.edited_since) status = msg("{status} (edited since)", arg("status", status));
    std::cout << fmt::format("  {}  {}  {}  {}\n", number_of(e), pad_right(e.lesson_slug, 20),
                             pad_right(tr(lang, status), 28), tr(lang, e.goal, e.id()));
  }
  print(inv, "start one with  cudalab exercise NN");
  return to_int(ExitCode::success);
}

int introduce(const Workspace& ws, const ExerciseDescription& e, const Invocation& inv) {
  const std::string n = number_of(e);
  print(inv, msg("cudalab exercise {number} · {slug}: {goal}", arg("number", n), arg("slug", e.lesson_slug),
                 arg("goal", e.goal)));
  print(inv, msg("wrote {file}: the file you edit", arg("file", ws.source_path(e))));
  for (const auto& line : e.task) std::cout << "  - " << tr(inv.output.lang(), line, e.id()) << '\n';
  print(inv, msg("check it:   cudalab exercise {number}            (compiles it, runs it on the lab's bench, says "
                 "what the GPU did)",
                 arg("number", n)));
  print(inv, msg("a hint:     cudalab exercise {number} --hint", arg("number", n)));
  print(inv, msg("every save: cudalab exercise {number} --watch", arg("number", n)));
  return to_int(ExitCode::success);
}

int give_hint(const Workspace& ws, const ExerciseDescription& e, const Invocation& inv) {
  const int total = static_cast<int>(e.hints.size());
  const int shown = ws.hints_shown(e);
  if (total == 0) {
    print(inv, "this exercise has no hints");
    return to_int(ExitCode::success);
  }
  const int next = std::min(shown, total - 1);
  print(inv, msg("hint {index} of {total}: {hint}", arg("index", next + 1), arg("total", total),
                 arg("hint", tr(inv.output.lang(), e.hints[static_cast<std::size_t>(next)], e.id()))));
  if (shown >= total) print(inv, "that was the last hint");
  ws.set_hints_shown(e, std::min(shown + 1, total));
  return to_int(ExitCode::success);
}

// ---- one check: compile, then run on the bench -------------------------------------------------

Message no_nvcc_message() {
  return "no nvcc found (CUDALAB_NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): install the CUDA toolkit, or set "
         "CUDALAB_NVCC to its nvcc";
}

int report_compile_failure(const CompileResult& built, const std::string& file, const Invocation& inv) {
  print(inv, msg("{file} did not compile:", arg("file", file)));
  if (built.timed_out) print(inv, "nvcc ran past its time limit");
  for (const auto& line : built.diagnostics) std::cout << "  " << printable_value(line, 400) << '\n';
  if (built.diagnostics.empty()) {  // nothing names the file (a link error): nvcc's own last words
    std::size_t start = built.output.size() > 4000 ? built.output.size() - 4000 : 0;
    std::cout << printable(built.output.substr(start)) << '\n';
  }
  return to_int(ExitCode::verify_failed);
}

int check_once(const Workspace& ws, const ExerciseDescription& e, Invocation& inv) {
  const std::string path = ws.source_path(e);
  const std::string source = ws.read_source(e);
  if (const Message problem = interface_problem(source, e, e.file_name()); !problem.empty()) throw UsageError(problem);
  const auto toolchain = find_toolchain();
  if (!toolchain) throw WaivedError(no_nvcc_message());
  const int device = inv.flags.device.empty() || inv.flags.device == "auto" ? 0 : std::stoi(inv.flags.device);
  std::string architecture;
  try {
    architecture = architecture_of_device(device);
  } catch (const WaivedError&) {  // no GPU: nvcc's default, so a laptop can still compile
  }
  say(inv, msg("cudalab: compiling {file} ({arch})", arg("file", path),
               arg("arch", architecture.empty() ? std::string("nvcc's default architecture") : architecture)));
  const CompileResult built = ws.compile(e, *toolchain, architecture);
  throw_if_interrupted();
  if (!built.ok) {
    ws.save_compile_failure(e, source_digest(source));
    return report_compile_failure(built, path, inv);
  }
  say(inv, msg("cudalab: compiled in {seconds} s", arg("seconds", fmt::format("{:.1f}", built.seconds))));
  if (architecture.empty()) {
    throw NoGpuError(msg("{file} compiled; there is no GPU here to run it on", arg("file", path)));
  }
  auto* lesson = dynamic_cast<ExerciseLesson*>(inv.lesson().lesson.get());
  lesson->use(ws.build_of(e, source, built.seconds, inv.exercise.time_limit_s));
  const Report report = run_stamped_lesson(inv.lesson(), inv);
  ws.save_run(e, report_to_json(report).dump());
  emit_report(report, inv.output);
  return exit_code_for(report, inv.flags.strict);
}

// What identifies one saved version of the file: its size, its change time and its text.
std::string version_of(const Workspace& ws, const ExerciseDescription& e) {
  struct stat st {};
  if (::stat(ws.source_path(e).c_str(), &st) != 0) return "";
  try {
    return source_digest(ws.read_source(e));
  } catch (const UsageError&) {
    return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_nsec);
  }
}

int watch(const Workspace& ws, const ExerciseDescription& e, Invocation& inv) {
  for (;;) {
    const std::string checked = version_of(ws, e);
    try {
      (void)check_once(ws, e, inv);
    } catch (const InterruptedError&) {
      throw;
    } catch (const Error& problem) {  // a problem of this version of the file: said, then watched
      say(inv, words_of(problem));
    }
    say(inv, msg("cudalab: watching {file}: save it to check again (Ctrl-C stops)", arg("file", ws.source_path(e))));
    while (version_of(ws, e) == checked) sleep_unless_interrupted(std::chrono::milliseconds(300));
  }
}

}  // namespace

void setup_exercise(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("exercise", "write the code yourself: cudalab exercise list, cudalab exercise 03");
  sub->require_subcommand(1);
  sub->footer(help_footer());
  CLI::App* list = sub->add_subcommand("list", "every exercise and how far you got");
  add_common_options(*list, setup.inv.flags, {"lang"});
  list->add_option("--dir", setup.inv.exercise.dir, "your exercise folder (default cudalab-exercises)")->type_name("DIR");
  list->callback([setup, list] {
    setup.inv.command = Command::exercise;
    setup.inv.exercise.exercise = nullptr;
    setup.parsed = list;
  });
  for (const auto& e : registered_exercises()) add_exercise_subcommand(*sub, e, setup);
}

int run_exercise(Invocation& inv) {
  const Workspace ws(inv.exercise.dir);
  if (inv.exercise.exercise == nullptr) return print_exercise_list(ws, inv);
  const ExerciseDescription& e = *inv.exercise.exercise;
  if (ws.write_starter(e)) return introduce(ws, e, inv);
  if (inv.exercise.hint) return give_hint(ws, e, inv);
  if (inv.exercise.watch) return watch(ws, e, inv);
  return check_once(ws, e, inv);
}

}  // namespace cudalab
