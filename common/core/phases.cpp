#include "common/core/phases.hpp"

#include <mutex>
#include <utility>

namespace cudalab {

namespace {
struct PhaseLog {
  std::mutex mutex;
  std::vector<PhaseTime> entries;
};
PhaseLog& phase_log() {
  static PhaseLog log;
  return log;
}
}  // namespace

void record_phase(std::string name, double seconds) {
  PhaseLog& log = phase_log();
  const std::lock_guard<std::mutex> lock(log.mutex);
  log.entries.push_back(PhaseTime{std::move(name), seconds});
}

std::vector<PhaseTime> take_phases() {
  PhaseLog& log = phase_log();
  const std::lock_guard<std::mutex> lock(log.mutex);
  return std::exchange(log.entries, {});
}

}  // namespace cudalab
