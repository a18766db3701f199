// Lesson 03's "lecture" section: lecture 002's program replayed as written (lecture_replica.hpp),
// its speed-up split into the parts that make it, and the checks on them. Pure.
#pragma once

#include "common/report/builder.hpp"
#include "lecture_replica.hpp"
#include "model.hpp"

namespace cudalab::stream_overlap {

// The replica's overlapped run within this share of the engine model (one kernel at a time).
inline constexpr double kLectureModelTolerance = 0.10;

// The sequential loop's medians, from the cold run to pinned, and the 4-stream run.
struct LectureTimes {
  double cold = 0, untouched = 0, touched = 0, warm = 0, pinned = 0, streams = 0;
};

// How the lecture's speed-up (its cold "sequential" run against its pinned 4-stream run) splits
// into factors that multiply to it: the cold start (itself the first launch, the first touch of
// the output's pages, and the first copy into a buffer), pinning, and overlap.
struct LectureSplit {
  double total = 0;         // cold / streams: the speed-up the program prints
  double cold_start = 0;    // cold / warm
  double first_launch = 0;  // cold / untouched: what a warm process no longer pays
  double first_touch = 0;   // untouched / touched: the output's pages touched inside the copies
  double first_copy = 0;    // touched / warm: the first copy into a buffer
  double pinning = 0;       // warm / pinned, both one stream
  double overlap = 0;       // pinned one stream / pinned 4 streams
};
LectureSplit split_lecture_speedup(const LectureTimes& t);

// ln(factor) / ln(total): the share of the speed-up one factor explains (0 when total is 1).
double share_of(double factor, double total);

void add_lecture_replica(ReportBuilder& b, const LectureReplica& r, const LecturePrediction& predicted);

}  // namespace cudalab::stream_overlap
