#include "course.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace cudalab {

// Each lesson folder defines its factory; this table is the only place outside a lesson's folder
// that names it.
std::unique_ptr<Lesson> make_device_query();
std::unique_ptr<Lesson> make_pinned_vs_pageable();
std::unique_ptr<Lesson> make_stream_overlap();
std::unique_ptr<Lesson> make_priority();
std::unique_ptr<Lesson> make_callbacks();
std::unique_ptr<Lesson> make_graph_pitfall();
std::unique_ptr<Lesson> make_graph_forkjoin();
std::unique_ptr<Lesson> make_default_stream();
std::unique_ptr<Lesson> make_events_sync();
std::unique_ptr<Lesson> make_multi_gpu();

std::string CourseEntry::id() const { return fmt::format("{:02d}-{}", number, slug); }

bool CourseEntry::matches(const std::string& word) const {
  const auto all = names();
  return std::find(all.begin(), all.end(), word) != all.end();
}

std::vector<std::string> CourseEntry::names() const {
  return {slug, fmt::format("{:02d}", number), std::to_string(number)};
}

const CourseEntry* find_course_entry(const std::string& word) {
  for (const auto& entry : course()) {
    if (entry.matches(word)) return &entry;
  }
  return nullptr;
}

const std::vector<CourseEntry>& course() {
  static const std::vector<CourseEntry> entries = {
      {1, "device-query", "the GPU as a factory of engines",
       "SMs, copy engines, priorities, PCIe link: the hardware the other lessons use", &make_device_query},
      {2, "pinned-vs-pageable", "pinned vs pageable host memory",
       "copy bandwidth and host blocking for pageable, pinned and registered memory", &make_pinned_vs_pageable},
      {3, "stream-overlap", "overlapping copies and kernels",
       "one stream vs many: the copy/compute staircase, predicted and measured", &make_stream_overlap},
      {4, "priority", "stream priorities",
       "an urgent kernel behind a GPU-filling load, with and without a high-priority stream", &make_priority},
      {5, "callbacks", "host functions in stream order",
       "cudaLaunchHostFunc: latency, blocking, and what not to do inside", &make_callbacks},
      {6, "graph-pitfall", "CUDA Graphs done wrong",
       "capture one batch on one stream: the graph runs serially and loses", &make_graph_pitfall},
      {7, "graph-forkjoin", "CUDA Graphs done right",
       "fork/join capture makes a parallel DAG; launch overhead per kernel", &make_graph_forkjoin},
      {8, "default-stream", "the default stream and implicit synchronization",
       "stream 0 between streams, per-thread default streams, cudaFree vs cudaFreeAsync", &make_default_stream},
      {9, "events-sync", "events and ways to wait",
       "timing with events vs host clocks; every way to wait: wake-up latency against CPU burned",
       &make_events_sync},
      {10, "multi-gpu", "several GPUs: peer copies and NCCL",
       "peer copies and all-reduces overlapped with a backward pass, with priorities (2+ GPUs)", &make_multi_gpu},
  };
  return entries;
}

}  // namespace cudalab
