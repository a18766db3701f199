// A flag named by a person outside CLI11's parse — a key in a class preset, a word at live mode's
// prompt — found and set in one place: the lesson's own flags first, then the common flags allowed
// there, each through its flag-table row, so it meets the command line's rule and reads the
// command line's error.
#pragma once

#include <string>
#include <vector>

#include "cli/flags.hpp"
#include "common/core/message.hpp"

namespace cudalab {

class FlagLookup {
 public:
  // `lesson` may be null (the flags of `all` or `show`); `common_names`: the common flags allowed.
  FlagLookup(Lesson* lesson, CommonFlags& flags, std::vector<std::string> common_names);

  // The flag's spec, or nullptr when `name` is neither one of the lesson's nor an allowed common one.
  const FlagSpec* find(const std::string& name) const;
  bool is_lessons_own(const std::string& name) const;
  // Sets it from typed text: an empty Message when accepted, else "--name: why not". `name` must
  // be found.
  Message try_set(const std::string& name, const std::string& text);
  // Every name it knows, the lesson's first.
  std::vector<std::string> names() const;
  // The name it knows closest to one it does not ("streams" for "stream"), or "".
  std::string closest(const std::string& name) const;

 private:
  Lesson* lesson_;
  CommonFlags* flags_;
  std::vector<std::string> common_;
  std::vector<FlagSpec> own_;
};

}  // namespace cudalab
