// Lesson 02 · pinned-vs-pageable: its four parts, in the order they run.
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_pinned_vs_pageable() {
  return make_lesson(pinned::flags, Repetitions{2, 20}, pinned::measure, pinned::predict, pinned::build_report);
}

}  // namespace cudalab
