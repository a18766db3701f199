// An exercise run is a lesson run: the lesson's own flags, the queue's turn, the stamp and the
// seal, every renderer, `show`, `compare` and `grade` work on it unchanged. What differs is one
// input, the student's compiled code, and what the run measures: the lab's own variants in this
// process's context, then the student's code in a child process (student_run.hpp), side by side.
#pragma once

#include <memory>
#include <string>

#include "common/lesson/lesson.hpp"

namespace cudalab {

// The student's file, compiled: what the bench runs and what the run records.
struct StudentBuild {
  std::string exercise_id;    // "03-stream-overlap"
  std::string interface_name;  // the interface it was compiled against, and its version
  int interface_version = 0;
  std::string file_name;      // "03-stream-overlap.cu"
  std::string source_path;    // as the student named it: "cudalab-exercises/03-stream-overlap.cu"
  std::string source_text;    // the file as compiled (bounded by source_check.hpp)
  std::string library_path;   // the shared library nvcc made of it
  double compile_s = 0;       // how long nvcc took
  double time_limit_s = 10;   // the child's, named in the report when it is reached
  // grade --rerun: the folder the child confines itself to (confinement.hpp), with HOME and TMPDIR
  // there; empty for the student's own check, which runs with the student's own rights.
  std::string confine_to;
};

class ExerciseLesson : public Lesson {
 public:
  // The build the next run() measures. Set before every run.
  virtual void use(const StudentBuild& build) = 0;
};

// The adapter an exercise's factory is one line of: its lesson's flag table (the same flags as
// the lesson, lesson.hpp's TableLesson), and a bench that measures the lab's variants and the
// student's code and builds the report.
template <class P>
class BenchLesson final : public TableLesson<P, ExerciseLesson> {
 public:
  using Bench = Report (*)(const P&, const RunContext&, const StudentBuild&);

  BenchLesson(typename TableLesson<P, ExerciseLesson>::Flags table, Repetitions reps, Bench bench)
      : TableLesson<P, ExerciseLesson>(table, reps), bench_(bench) {}

  std::unique_ptr<Lesson> clone() const override { return std::make_unique<BenchLesson>(*this); }
  void use(const StudentBuild& build) override { build_ = build; }
  Report run(const RunContext& ctx) override { return bench_(this->params_of(), ctx, build_); }

 private:
  Bench bench_;
  StudentBuild build_;
};

template <class P>
std::unique_ptr<ExerciseLesson> make_exercise(const FlagTable<P>& (*flags)(), Repetitions reps,
                                              Report (*bench)(const P&, const RunContext&, const StudentBuild&)) {
  return std::make_unique<BenchLesson<P>>(flags, reps, bench);
}

}  // namespace cudalab
