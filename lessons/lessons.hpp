// One factory per built lesson; cli/course.cpp puts them in course order.
#pragma once

#include <memory>

#include "lesson.hpp"

namespace cudalab {

std::unique_ptr<Lesson> make_device_query();
std::unique_ptr<Lesson> make_pinned_vs_pageable();
std::unique_ptr<Lesson> make_stream_overlap();
std::unique_ptr<Lesson> make_priority();
std::unique_ptr<Lesson> make_callbacks();
std::unique_ptr<Lesson> make_graph_pitfall();
std::unique_ptr<Lesson> make_graph_forkjoin();

}  // namespace cudalab
