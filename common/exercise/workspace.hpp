// The student's exercise folder, kept as rustlings keeps its exercises: one file per exercise that
// the student edits (written once from its starter, never overwritten), and beside them .cudalab/,
// the lab's own: the interface headers and the libraries it builds, how many hints were shown, and
// each exercise's last outcome, which `cudalab exercise list` reads. Everything in it is the
// student's and untrusted: read bounded, never through a FIFO (core/files.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/core/message.hpp"
#include "common/exercise/exercise_lesson.hpp"
#include "common/exercise/toolchain.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct ExerciseDescription;

inline constexpr const char* kDefaultExerciseFolder = "cudalab-exercises";

enum class ExerciseStatus { not_started, does_not_compile, does_not_run, wrong_result, correct_but_slow, done };

// "not started", "does not compile", ... (words).
Message status_words(ExerciseStatus status);
// The status an exercise run gives by its checks (exercise.hpp's three keys).
ExerciseStatus status_of_run(const Report& run);

// What the folder says of one exercise, for `exercise list`.
struct ExerciseState {
  ExerciseStatus status = ExerciseStatus::not_started;
  bool edited_since = false;  // the file changed after the outcome the status comes from
};

class Workspace {
 public:
  explicit Workspace(std::string folder);
  const std::string& folder() const { return folder_; }

  std::string source_path(const ExerciseDescription& e) const;
  bool has_source(const ExerciseDescription& e) const;
  // The starter, when the student's file is not there yet: created, never overwritten (an
  // existing file, even an empty one, is left alone). True when it was written.
  bool write_starter(const ExerciseDescription& e) const;
  // The same, with `text` for the file: grade --rerun writes a handed-in source into a folder of its own.
  bool write_source(const ExerciseDescription& e, const std::string& text) const;
  // The student's file, bounded (source_check.hpp's limit). Throws UsageError naming it.
  std::string read_source(const ExerciseDescription& e) const;

  // Where the exercise's interface header is (written afresh each time) and the library goes.
  std::string prepare_include_dir(const ExerciseDescription& e) const;
  std::string library_path(const ExerciseDescription& e) const;

  // The student's file compiled for `architecture` ("" for nvcc's default) into library_path(e).
  CompileResult compile(const ExerciseDescription& e, const Toolchain& toolchain, const std::string& architecture) const;
  // What the bench runs: `source` as it was compiled, its library, how long nvcc took, the limit.
  StudentBuild build_of(const ExerciseDescription& e, const std::string& source, double compile_s,
                        double time_limit_s) const;

  int hints_shown(const ExerciseDescription& e) const;
  void set_hints_shown(const ExerciseDescription& e, int count) const;

  // The last outcome: a run (its JSON), or a compile that failed (the source's digest).
  void save_run(const ExerciseDescription& e, const std::string& run_json) const;
  void save_compile_failure(const ExerciseDescription& e, const std::string& source_digest) const;
  ExerciseState state(const ExerciseDescription& e) const;

 private:
  std::string lab_dir() const;  // folder/.cudalab
  std::string in_lab_dir(const ExerciseDescription& e, const std::string& suffix) const;
  void write_lab_file(const std::string& path, const std::string& text) const;
  std::string folder_;
};

// "sha256:<hex>" of a source text, as runs and the workspace record it.
std::string source_digest(const std::string& text);

}  // namespace cudalab
