// What an exercise says of itself, and the list every exercise registers into. An exercise is
// code the student writes for a lesson, which the lesson's bench compiles, measures, draws and
// explains: it lives in its lesson's folder (exercise.cpp registers it, as lesson.cpp registers
// the lesson), so adding one touches nothing here, in cli/ or in another lesson.
//
//   CUDALAB_EXERCISE(ExerciseDescription(3, "stream-overlap", "pipeline")
//                        .speaks("stream_overlap_pipeline", 1)
//                        .files(exercise_file("03-stream-overlap", "starter.cu"), ...)
//                        .hinted({"...", "..."})
//                        .made_by([] { return make_exercise(...); })
//                        .served_by(stream_overlap::serve_pipeline));
//
// The interface between the student's file and the bench is versioned: the starter includes
// <cudalab/NAME_vN.h> and exports `cudalab_exercise_entry` naming NAME and N; a file written for
// another version is refused by name and version before it is compiled (source_check.hpp), and a
// library whose entry says otherwise is refused before it runs (student_library.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/core/message.hpp"
#include "common/exercise/exercise_lesson.hpp"

namespace cudalab {

class StudentLibrary;

struct ExerciseDescription {
  using Factory = std::unique_ptr<ExerciseLesson> (*)();
  // The child's side, in the child process: runs the student's code from `library` as the
  // request (the parent's JSON) asks and returns the result as JSON. Throws as a lesson does.
  using Server = std::string (*)(const std::string& request, const StudentLibrary& library);

  ExerciseDescription(int lesson, std::string slug, std::string exercise_name)
      : lesson_number(lesson), lesson_slug(std::move(slug)), name(std::move(exercise_name)) {}
  ExerciseDescription&& speaks(std::string interface, int version) &&;
  ExerciseDescription&& goal_is(Message one_line) &&;
  ExerciseDescription&& told(std::vector<Message> lines) &&;
  ExerciseDescription&& hinted(std::vector<Message> in_order) &&;
  ExerciseDescription&& files(std::string starter_text, std::string solution_text, std::string header_text) &&;
  ExerciseDescription&& made_by(Factory factory) &&;
  ExerciseDescription&& served_by(Server server) &&;

  int lesson_number;
  std::string lesson_slug;
  std::string name;              // "pipeline"
  std::string interface_name;    // "stream_overlap_pipeline"
  int interface_version = 0;
  Message goal;                  // "write the chunked pipeline over N streams"
  std::vector<Message> task;     // what the first `cudalab exercise NN` says to do
  std::vector<Message> hints;    // `--hint` gives the next one
  std::string starter;           // the file the student starts from
  std::string solution;          // ours: done on the lab GPU (a test holds it to that)
  std::string header;            // <cudalab/NAME_vN.h>, written beside the build
  Factory make = nullptr;
  Server serve = nullptr;

  std::string id() const;         // "03-stream-overlap"
  std::string file_name() const;  // "03-stream-overlap.cu": the student's file
  std::string header_path() const;  // "cudalab/stream_overlap_pipeline_v1.h"
  std::vector<std::string> names() const;  // "stream-overlap", "03", "3", "03-stream-overlap"
  bool matches(const std::string& word) const;
};

// Called by CUDALAB_EXERCISE while the program starts (one exercise per lesson at most; the
// course test checks that).
void register_exercise(ExerciseDescription description);
// Every registered exercise, in course order.
const std::vector<ExerciseDescription>& registered_exercises();
// The exercise `word` names (its lesson's number or slug); nullptr when none.
const ExerciseDescription* find_exercise(const std::string& word);

struct ExerciseRegistrar {
  explicit ExerciseRegistrar(ExerciseDescription description) { register_exercise(std::move(description)); }
};

// The checks every exercise's report carries, by key, so that `exercise list` and `grade` read
// any exercise's run the same way: the student's code ran to its end (no crash, hang or CUDA
// error), its results are right, and it met the exercise's target.
inline constexpr const char* kExerciseRanCheck = "exercise_ran";
inline constexpr const char* kExerciseCorrectCheck = "exercise_correct";
inline constexpr const char* kExerciseDoneCheck = "exercise_done";

}  // namespace cudalab

#define CUDALAB_EXERCISE_JOIN2(a, b) a##b
#define CUDALAB_EXERCISE_JOIN(a, b) CUDALAB_EXERCISE_JOIN2(a, b)
#define CUDALAB_EXERCISE(...)                                                                                \
  namespace {                                                                                                \
  const ::cudalab::ExerciseRegistrar CUDALAB_EXERCISE_JOIN(cudalab_exercise_registrar_, __LINE__){__VA_ARGS__}; \
  }
