// The grader's re-runs (rerun.hpp).
#include "cli/rerun.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <fmt/format.h>

#include "cli/lesson_session.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/core/units.hpp"
#include "common/exercise/confinement.hpp"
#include "common/exercise/source_check.hpp"
#include "common/exercise/toolchain.hpp"
#include "common/exercise/workspace.hpp"
#include "common/gpu/device.hpp"
#include "common/grading/table_cells.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// A folder of its own (0700, under $TMPDIR), removed with everything in it when the re-run ends.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/cudalab-rerun-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw RuntimeError(msg("grade --rerun: cannot make a folder in {dir}: {error}", arg("dir", pattern),
                             arg("error", errno_words(errno))));
    }
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Rerun not_rerun(const Message& why) { return Rerun{Message("not re-run"), "", {why}}; }

// The exercise's status in its report's own checks, and why it fails: a failed verify check each.
Rerun judged(const Report& report) {
  Rerun r{status_words(status_of_run(report)), join_words(headline_items(report), "; "), {}};
  for (const auto& check : report.checks) {
    if (check.kind == CheckKind::verify && !check.passed) {
      r.problems.push_back(msg("verify {key} failed: {why}", arg("key", check.key), arg("why", check.summary)));
    }
  }
  return r;
}

// One source: written, compiled, then measured on the bench with the hand-in's own flags.
Rerun rerun_one(const ExerciseRecord& code, const Report& handed_in, const Toolchain& toolchain,
                const std::string& architecture, const Invocation& inv) {
  const ExerciseDescription* e = find_exercise(code.id);
  const CourseEntry* entry = e != nullptr ? find_course_entry(std::to_string(e->lesson_number)) : nullptr;
  if (e == nullptr || entry == nullptr || e->make == nullptr) {
    return not_rerun(msg("this cudalab has no exercise {exercise}", arg("exercise", code.id)));
  }
  if (const Message problem = interface_problem(code.source, *e, e->file_name()); !problem.empty()) return not_rerun(problem);
  const ScratchFolder scratch;
  const Workspace ws(scratch.path());
  ws.write_source(*e, code.source);
  const CompileResult built = ws.compile(*e, toolchain, architecture);
  throw_if_interrupted();
  if (!built.ok) {
    const std::string first = built.diagnostics.empty() ? std::string("nvcc failed") : built.diagnostics.front();
    return Rerun{status_words(ExerciseStatus::does_not_compile), "",
                 {msg("it does not compile: {diagnostic}", arg("diagnostic", printable_value(first, 300)))}};
  }
  LessonSetup setup{entry, e->make(), {}, {}, {}};
  for (const auto& param : handed_in.params) {
    if (!param.stable) continue;  // a value the GPU chose is chosen again here
    if (const Message problem = setup.lesson->set_flag(param.name, param.value); !problem.empty()) {
      return not_rerun(msg("its flag --{name} {value}: {problem}", arg("name", param.name),
                           arg("value", printable_value(param.value)), arg("problem", problem)));
    }
  }
  auto* lesson = dynamic_cast<ExerciseLesson*>(setup.lesson.get());
  StudentBuild build = ws.build_of(*e, code.source, built.seconds, inv.exercise.time_limit_s);
  if (landlock_abi() > 0) build.confine_to = scratch.path();
  lesson->use(build);
  try {
    return judged(run_stamped_lesson(setup, inv));
  } catch (const InterruptedError&) {
    throw;
  } catch (const Error& problem) {
    return not_rerun(words_of(problem));
  }
}

bool rerunnable(const GradeRow& row) { return row.run != nullptr && !row.superseded && row.run->report.exercise.has_value(); }

}  // namespace

void rerun_exercises(std::vector<GradeRow>& rows, const std::string& folder, const Invocation& inv) {
  const Lang lang = inv.output.lang();
  std::size_t total = 0;
  for (const auto& row : rows) total += rerunnable(row) ? 1 : 0;
  if (total == 0) {
    std::cerr << tr(lang, "cudalab: grade --rerun: no counting run holds an exercise's source: nothing to re-run") << '\n';
    return;
  }
  const auto toolchain = find_toolchain();
  if (!toolchain) throw WaivedError("grade --rerun: no nvcc found (CUDALAB_NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
  const std::string architecture = architecture_of_device(0);  // WaivedError when there is no GPU here
  if (landlock_abi() == 0) {
    std::cerr << tr(lang, "cudalab: grade --rerun: this kernel offers no Landlock, so students' code runs with your "
                          "own rights to files (docs/grade.md)")
              << '\n';
  } else if (const std::string under = readable_when_confined(std::filesystem::absolute(folder).lexically_normal().string());
             !under.empty()) {
    std::cerr << tr(lang, msg("cudalab: grade --rerun: the class's folder lies under {path}, which students' code may "
                              "read when it runs: keep the class's runs elsewhere",
                              arg("path", under)))
              << '\n';
  }
  std::size_t done = 0;
  for (auto& row : rows) {
    if (!rerunnable(row)) continue;
    ++done;
    std::cerr << tr(lang, msg("cudalab: grade --rerun: {index} of {total}: {file}", arg("index", done), arg("total", total),
                              arg("file", row.file)))
              << '\n';
    row.rerun = rerun_one(*row.run->report.exercise, row.run->report, *toolchain, architecture, inv);
  }
}

}  // namespace cudalab
