#include "common/core/timeline.hpp"

#include <algorithm>

namespace cudalab {

namespace {

constexpr ActivityKind kAllKinds[] = {ActivityKind::h2d,    ActivityKind::d2h,           ActivityKind::d2d,  ActivityKind::h2h,
                                ActivityKind::kernel, ActivityKind::memset, ActivityKind::host_callback, ActivityKind::sync,
                                ActivityKind::migration_h2d, ActivityKind::migration_d2h, ActivityKind::page_fault};

}  // namespace

const char* activity_kind_name(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::h2d: return "h2d";
    case ActivityKind::d2h: return "d2h";
    case ActivityKind::d2d: return "d2d";
    case ActivityKind::h2h: return "h2h";
    case ActivityKind::kernel: return "kernel";
    case ActivityKind::memset: return "memset";
    case ActivityKind::host_callback: return "host_callback";
    case ActivityKind::sync: return "sync";
    case ActivityKind::migration_h2d: return "migration_h2d";
    case ActivityKind::migration_d2h: return "migration_d2h";
    case ActivityKind::page_fault: return "page_fault";
  }
  return "?";
}

std::optional<ActivityKind> activity_kind_from_name(std::string_view name) {
  for (ActivityKind k : kAllKinds) {
    if (name == activity_kind_name(k)) return k;
  }
  return std::nullopt;
}

std::int64_t Timeline::span_ns() const {
  std::int64_t end = 0;
  for (const auto& op : ops) end = std::max(end, op.end_ns);
  return end;
}

}  // namespace cudalab
