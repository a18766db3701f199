#include "cli/flag_lookup.hpp"

#include <algorithm>

#include "cli/suggest.hpp"

namespace cudalab {

FlagLookup::FlagLookup(Lesson* lesson, CommonFlags& flags, std::vector<std::string> common_names)
    : lesson_(lesson), flags_(&flags), common_(std::move(common_names)),
      own_(lesson != nullptr ? lesson->flags() : std::vector<FlagSpec>{}) {}

const FlagSpec* FlagLookup::find(const std::string& name) const {
  const auto own = std::find_if(own_.begin(), own_.end(), [&](const FlagSpec& s) { return s.name == name; });
  if (own != own_.end()) return &*own;
  if (std::find(common_.begin(), common_.end(), name) == common_.end()) return nullptr;
  const auto* row = common_flags().find(name);
  return row == nullptr ? nullptr : &row->spec;
}

bool FlagLookup::is_lessons_own(const std::string& name) const {
  return std::any_of(own_.begin(), own_.end(), [&](const FlagSpec& s) { return s.name == name; });
}

Message FlagLookup::try_set(const std::string& name, const std::string& text) {
  const auto error = is_lessons_own(name) ? lesson_->set_flag(name, text) : common_flags().find(name)->set(*flags_, text);
  if (error.empty()) return {};
  return msg("--{flag}: {problem}", arg("flag", name), arg("problem", error));
}

std::vector<std::string> FlagLookup::names() const {
  std::vector<std::string> all;
  for (const auto& s : own_) all.push_back(s.name);
  all.insert(all.end(), common_.begin(), common_.end());
  return all;
}

std::string FlagLookup::closest(const std::string& name) const { return closest_word(name, names()); }

}  // namespace cudalab
