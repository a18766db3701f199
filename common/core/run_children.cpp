#include "common/core/run_children.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace cudalab {

namespace {

struct Children {
  std::mutex mutex;
  std::vector<long> pids;
};

Children& children() {
  static Children c;
  return c;
}

}  // namespace

RunChild::RunChild(long pid) : pid_(pid) {
  const std::lock_guard<std::mutex> lock(children().mutex);
  children().pids.push_back(pid);
}

RunChild::~RunChild() {
  const std::lock_guard<std::mutex> lock(children().mutex);
  auto& pids = children().pids;
  pids.erase(std::remove(pids.begin(), pids.end(), pid_), pids.end());
}

bool is_run_child(long pid) {
  const std::lock_guard<std::mutex> lock(children().mutex);
  const auto& pids = children().pids;
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

}  // namespace cudalab
