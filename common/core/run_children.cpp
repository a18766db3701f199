#include "common/core/run_children.hpp"

#include <algorithm>
#include <deque>
#include <mutex>

namespace cudalab {

namespace {

constexpr std::size_t kRemembered = 256;  // far more children than any one run starts

struct Children {
  std::mutex mutex;
  std::deque<long> pids;
};

Children& children() {
  static Children c;
  return c;
}

}  // namespace

void count_as_this_run(long pid) {
  const std::lock_guard<std::mutex> lock(children().mutex);
  auto& pids = children().pids;
  pids.push_back(pid);
  if (pids.size() > kRemembered) pids.pop_front();
}

bool is_run_child(long pid) {
  const std::lock_guard<std::mutex> lock(children().mutex);
  const auto& pids = children().pids;
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

}  // namespace cudalab
