#include "common/exercise/workspace.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/exercise/exercise.hpp"
#include "common/exercise/source_check.hpp"
#include "common/report/digest.hpp"
#include "common/report/report_json.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kMaxStateBytes = 64 << 10;
constexpr const char* kCompileFailed = "compile failed ";

void make_folder(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    throw UsageError(msg("cannot make the folder {folder}: {error}", arg("folder", path), arg("error", errno_words(errno))));
  }
}

std::optional<std::string> read_state(const std::string& path, std::size_t limit) {
  if (!input_file_problem(path).empty()) return std::nullopt;
  try {
    return read_regular_file(path, limit, "the exercise folder's state");
  } catch (const UsageError&) {
    return std::nullopt;  // a state file that is not ours any more counts as none
  }
}

}  // namespace

std::string source_digest(const std::string& text) { return "sha256:" + sha256_hex(text); }

Message status_words(ExerciseStatus status) {
  switch (status) {
    case ExerciseStatus::not_started: return "not started";
    case ExerciseStatus::does_not_compile: return "does not compile";
    case ExerciseStatus::does_not_run: return "does not run";
    case ExerciseStatus::wrong_result: return "wrong result";
    case ExerciseStatus::correct_but_slow: return "correct but slow";
    case ExerciseStatus::done: return "done";
  }
  return "not started";
}

ExerciseStatus status_of_run(const Report& run) {
  auto passed = [&](const char* key) -> std::optional<bool> {
    for (const auto& c : run.checks) {
      if (c.key == key) return c.passed;
    }
    return std::nullopt;
  };
  if (!passed(kExerciseRanCheck).value_or(false)) return ExerciseStatus::does_not_run;
  if (!passed(kExerciseCorrectCheck).value_or(false)) return ExerciseStatus::wrong_result;
  return passed(kExerciseDoneCheck).value_or(false) ? ExerciseStatus::done : ExerciseStatus::correct_but_slow;
}

Workspace::Workspace(std::string folder) : folder_(std::move(folder)) {}

std::string Workspace::source_path(const ExerciseDescription& e) const { return folder_ + "/" + e.file_name(); }

bool Workspace::has_source(const ExerciseDescription& e) const {
  struct stat st {};
  return ::lstat(source_path(e).c_str(), &st) == 0;
}

bool Workspace::write_starter(const ExerciseDescription& e) const { return write_source(e, e.starter); }

bool Workspace::write_source(const ExerciseDescription& e, const std::string& text) const {
  make_folder(folder_);
  const std::string path = source_path(e);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    throw UsageError(msg("cannot write {file}: {error}", arg("file", path), arg("error", errno_words(errno))));
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (done != text.size()) throw UsageError(msg("cannot write {file}", arg("file", path)));
  return true;
}

std::string Workspace::read_source(const ExerciseDescription& e) const {
  return read_regular_file(source_path(e), kMaxExerciseSource, "your exercise file");
}

std::string Workspace::lab_dir() const { return folder_ + "/.cudalab"; }

std::string Workspace::in_lab_dir(const ExerciseDescription& e, const std::string& suffix) const {
  return lab_dir() + "/" + e.id() + suffix;
}

void Workspace::write_lab_file(const std::string& path, const std::string& text) const {
  make_folder(folder_);
  make_folder(lab_dir());
  const std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw UsageError(msg("cannot write {file}", arg("file", temporary)));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    throw UsageError(msg("cannot write {file}: {error}", arg("file", path), arg("error", errno_words(errno))));
  }
}

std::string Workspace::prepare_include_dir(const ExerciseDescription& e) const {
  const std::string include = in_lab_dir(e, ".include");
  make_folder(folder_);
  make_folder(lab_dir());
  make_folder(include);
  make_folder(include + "/cudalab");
  write_lab_file(include + "/" + e.header_path(), e.header);
  return include;
}

std::string Workspace::library_path(const ExerciseDescription& e) const { return in_lab_dir(e, ".so"); }

CompileResult Workspace::compile(const ExerciseDescription& e, const Toolchain& toolchain,
                                 const std::string& architecture) const {
  return compile_student_file(toolchain, {source_path(e), prepare_include_dir(e), library_path(e), architecture});
}

StudentBuild Workspace::build_of(const ExerciseDescription& e, const std::string& source, double compile_s,
                                 double time_limit_s) const {
  return StudentBuild{e.id(),     e.interface_name, e.interface_version, e.file_name(), source_path(e),
                      source,     library_path(e),  compile_s,           time_limit_s,  {}};
}

int Workspace::hints_shown(const ExerciseDescription& e) const {
  const auto text = read_state(in_lab_dir(e, ".hints"), 16);
  if (!text) return 0;
  int count = 0;
  for (char c : *text) {
    if (c < '0' || c > '9') break;
    count = count * 10 + (c - '0');
  }
  return std::min<int>(count, static_cast<int>(e.hints.size()));
}

void Workspace::set_hints_shown(const ExerciseDescription& e, int count) const {
  write_lab_file(in_lab_dir(e, ".hints"), std::to_string(count) + "\n");
}

void Workspace::save_run(const ExerciseDescription& e, const std::string& run_json) const {
  write_lab_file(in_lab_dir(e, ".last.json"), run_json);
}

void Workspace::save_compile_failure(const ExerciseDescription& e, const std::string& digest) const {
  write_lab_file(in_lab_dir(e, ".last.json"), kCompileFailed + digest + "\n");
}

ExerciseState Workspace::state(const ExerciseDescription& e) const {
  ExerciseState state;
  if (!has_source(e)) return state;
  std::string current;
  try {
    current = source_digest(read_source(e));
  } catch (const UsageError&) {
  }
  const auto last = read_state(in_lab_dir(e, ".last.json"), kMaxRunFileBytes);
  if (!last) return state;  // the starter is there, never checked yet: still not started
  const std::string prefix = kCompileFailed;
  if (last->compare(0, prefix.size(), prefix) == 0) {
    state.status = ExerciseStatus::does_not_compile;
    state.edited_since = last->substr(prefix.size(), current.size()) != current;
    return state;
  }
  try {
    const auto runs = parse_saved_runs(*last, in_lab_dir(e, ".last.json"));
    const Report& run = runs.front().report;
    state.status = status_of_run(run);
    state.edited_since = !run.exercise || run.exercise->source_digest != current;
  } catch (const UsageError&) {
  }
  return state;
}

}  // namespace cudalab
