// Lesson 01's flags: none of its own. Which device it shows is the common --device flag (all
// devices when it is not given), which the run context carries.
#pragma once

#include "common/lesson/flag_table.hpp"

namespace cudalab::device_query {

struct Params {};

inline const FlagTable<Params>& flags() {
  static const FlagTable<Params> table;
  return table;
}

}  // namespace cudalab::device_query
