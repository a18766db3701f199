// Turns learned, not typed: how long each lesson really holds a GPU, from the turns that ended
// on it. The queue's wait estimate and its "may be stuck" rule read the median of the recent
// turns of a lesson on that GPU; until a GPU has seen enough of them, the lesson's stated
// estimate (its reference run's queue.held_s, cli/course.hpp) stands.
//
// Where: each user keeps one file in the GPU's queue folder, "turns-<uid>", a line per turn:
//   "<lesson> <held seconds> <given back at, wall-clock seconds>"
// at most kTurnsKept per lesson, rewritten whole (a temporary file renamed into place) when a
// turn that measured undisturbed ends.
//
// Trust: anyone can write the folder, so a file counts only when the kernel says its owner is the
// uid in its name; each is read up to a size limit, and a line that is not exactly the form above
// is skipped. One user's turns count at most kTurnsPerUser times in a lesson's median, so a
// student cannot move the estimate (nor the stuck rule) alone: that takes over half the turns.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/queue/queue_line.hpp"

namespace cudalab {

inline constexpr std::size_t kTurnsKept = 15;     // per lesson, in one user's file
inline constexpr std::size_t kTurnsCounted = 15;  // the newest this many turns of a lesson make its median
inline constexpr std::size_t kTurnsPerUser = 5;   // of which one user gives at most this many
inline constexpr std::size_t kTurnsToLearn = 3;   // fewer than this: the stated estimate stands

struct Turn {
  std::string lesson;
  double held_s = 0;
  double given_back_at = 0;
};

// The turns a file's text holds, in its order; a line not of the form "lesson held at" (lesson
// 1-40 of [a-z0-9-], held finite in (0, 1 day], at finite and positive) is skipped.
std::vector<Turn> parse_turns(std::string_view text);
// The text of a user's file: the newest kTurnsKept turns of each lesson, oldest first.
std::string turns_text(std::vector<Turn> turns);

// What one GPU's folder has learned of one lesson.
struct LearnedTurn {
  double median_s = 0;    // of the counted turns
  std::size_t count = 0;  // turns counted (at most kTurnsCounted)
  bool enough() const { return count >= kTurnsToLearn; }
};
using LearnedTurns = std::map<std::string, LearnedTurn>;

// Adds one ended turn to this user's file in the GPU folder `gpu_folder` (an open descriptor).
// Best effort: false when it could not be written (the estimate only learns less).
bool remember_turn(int gpu_folder, const Turn& turn);
// Every lesson's learned turns in a GPU folder. Reading: at most 512 files of at most 16 KiB.
LearnedTurns learned_turns(int gpu_folder);
// The same for every GPU folder of the queue folder `root` ("" means queue_root_path()), by the
// folder's name (its GPU UUID). Nothing is created: a missing queue folder has learned nothing.
std::map<std::string, LearnedTurns> learned_turns_by_gpu(const std::string& root);

// `stated` with each lesson that has enough learned turns replaced by their median.
TurnTimes with_learned(TurnTimes stated, const LearnedTurns& learned);

}  // namespace cudalab
