// How many elements of an experiment's output matched the CPU reference: a verify check carries
// these two counts, so its verdict can be recomputed from the run file (report/integrity.hpp).
#pragma once

#include <cstddef>

namespace cudalab {

// Counts elements that matched the CPU reference over every run of an experiment.
struct Tally {
  std::size_t checked = 0;
  std::size_t correct = 0;
  void add(std::size_t correct_now, std::size_t checked_now) {
    correct += correct_now;
    checked += checked_now;
  }
  void add(const Tally& other) { add(other.correct, other.checked); }
  bool all_correct() const { return checked > 0 && correct == checked; }
};

}  // namespace cudalab
