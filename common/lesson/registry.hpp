// What a lesson says of itself, and the list every lesson registers into. A lesson's lesson.cpp
// describes the lesson once and registers it, as nvbench's NVBENCH_BENCH registers a benchmark:
//
//   CUDALAB_LESSON(LessonDescription(4, "priority")
//                      .titled("stream priorities", "流优先级")
//                      .summarized("an urgent kernel behind a GPU-filling load, ...", "……")
//                      .made_by([] { return make_lesson(priority::flags, ...); }));
//
// The course (`list`, help, completion, `all`) is read from these descriptions, so adding a
// lesson touches its own folder and nothing in cli/ or common/. (How long a turn takes is not
// described but measured: the reference run's, then the queue's learned turns.) The
// lessons' target is linked whole (lessons/CMakeLists.txt), so no registrar is dropped by the
// linker; a unit test checks that every lessons/NN-* folder registered.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/core/lang.hpp"
#include "common/lesson/lesson.hpp"

namespace cudalab {

// A text in both languages the lab speaks.
struct Words {
  std::string en;
  std::string zh;
  const std::string& in(Lang lang) const { return lang == Lang::zh ? zh : en; }
};

struct LessonDescription {
  using Factory = std::unique_ptr<Lesson> (*)();

  LessonDescription(int lesson_number, std::string lesson_slug) : number(lesson_number), slug(std::move(lesson_slug)) {}
  LessonDescription&& titled(std::string en, std::string zh) &&;
  LessonDescription&& summarized(std::string en, std::string zh) &&;
  LessonDescription&& needs_gpus(int count) &&;
  LessonDescription&& made_by(Factory factory) &&;

  int number;
  std::string slug;
  Words title;               // "stream priorities"
  Words summary;             // one line for `cudalab list` and the README's table
  int gpus_needed = 1;       // the fewest GPUs it runs on
  Factory make = nullptr;

  // "03-stream-overlap": the name of its notes, its zh words and its reference run.
  std::string id() const;
  // The words that name it on the command line: its slug, "03" and "3".
  std::vector<std::string> names() const;
  bool matches(const std::string& word) const;
};

// Called by CUDALAB_LESSON while the program starts; a number or a name given twice is refused
// by the course's unit test, not here (nothing can be reported before main).
void register_lesson(LessonDescription description);

// Every registered lesson, in course order (by number).
const std::vector<LessonDescription>& registered_lessons();

// The lesson `word` names (its number, with or without the 0, or its name); nullptr when none.
const LessonDescription* find_lesson(const std::string& word);

struct LessonRegistrar {
  explicit LessonRegistrar(LessonDescription description) { register_lesson(std::move(description)); }
};

}  // namespace cudalab

#define CUDALAB_LESSON_JOIN2(a, b) a##b
#define CUDALAB_LESSON_JOIN(a, b) CUDALAB_LESSON_JOIN2(a, b)
// Registers the lesson this folder describes (one per lesson.cpp).
#define CUDALAB_LESSON(...)                                                                           \
  namespace {                                                                                          \
  const ::cudalab::LessonRegistrar CUDALAB_LESSON_JOIN(cudalab_lesson_registrar_, __LINE__){__VA_ARGS__}; \
  }
