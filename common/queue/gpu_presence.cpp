#include "common/queue/gpu_presence.hpp"

#include <unistd.h>

#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "common/queue/queue_files.hpp"

namespace cudalab {

namespace {

using namespace queue_files;

struct Presence {
  std::string root, gpu_uuid;
  Fd gpu_folder;
  pid_t pid = 0;  // whose file it is: a forked child must not withdraw its parent's
  std::optional<OpenedFile> file;
};

struct PresenceState {
  std::mutex mutex;
  std::vector<Presence> gpus;
  int measuring = 0;
};

// Never destroyed: the locks are meant to last until the process exits, and the kernel drops
// them then.
PresenceState& presence_state() {
  static auto* state = new PresenceState;
  return *state;
}

std::string present_name(long pid) { return fmt::format("present-{}", pid); }

void show(Presence& p) {
  if (p.file) return;
  p.pid = ::getpid();
  const std::string name = present_name(p.pid);
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      if (auto file = create_locked(p.gpu_folder.get(), name, "")) {
        p.file = std::move(*file);
        return;
      }
    } catch (const QueueUnavailableError&) {
      return;
    }
    // The name is taken: by a dead process that had our pid before (ours to remove when its uid
    // is ours), or by someone else (then we stay uncounted, as without the queue).
    auto old = open_regular(p.gpu_folder.get(), name);
    if (!old || old->facts.owner != ::geteuid() || locked_by_someone(old->fd.get())) return;
    if (!remove_if_ours(p.gpu_folder.get(), name, old->facts)) return;
  }
}

// The present files of our dead processes (killed while idle) go when one of ours arrives. A file
// is removed only if it is still the unlocked one we looked at (remove_if_ours compares the
// inode), so a new process that took over the pid and its name keeps its own.
void clear_dead_presence(int gpu_folder) {
  for (const auto& name : list_names(gpu_folder, kMaxFolderEntries)) {
    if (name.rfind("present-", 0) != 0) continue;
    const auto file = open_regular(gpu_folder, name);
    if (file && file->facts.owner == ::geteuid() && !locked_by_someone(file->fd.get())) {
      remove_if_ours(gpu_folder, name, file->facts);
    }
  }
}

void withdraw(Presence& p) {
  if (!p.file) return;
  if (p.pid == ::getpid()) remove_if_ours(p.gpu_folder.get(), present_name(p.pid), p.file->facts);
  p.file.reset();  // closing drops the lock (a forked child's copy drops nothing of its parent's)
}

}  // namespace

void announce_gpu_presence(const std::string& gpu_uuid, const std::string& folder) {
  PresenceState& state = presence_state();
  const std::lock_guard<std::mutex> lock(state.mutex);
  for (const auto& p : state.gpus) {
    if (p.root == folder && p.gpu_uuid == gpu_uuid) return;
  }
  Presence presence{folder, gpu_uuid, Fd(), 0, std::nullopt};
  try {
    presence.gpu_folder = open_gpu_folder(folder, gpu_uuid);
  } catch (const QueueUnavailableError&) {
    return;
  }
  clear_dead_presence(presence.gpu_folder.get());
  if (state.measuring == 0) show(presence);
  state.gpus.push_back(std::move(presence));
}

MeasuringScope::MeasuringScope() {
  PresenceState& state = presence_state();
  const std::lock_guard<std::mutex> lock(state.mutex);
  if (state.measuring++ == 0) {
    for (auto& p : state.gpus) withdraw(p);
  }
}

MeasuringScope::~MeasuringScope() {
  PresenceState& state = presence_state();
  const std::lock_guard<std::mutex> lock(state.mutex);
  if (--state.measuring == 0) {
    for (auto& p : state.gpus) show(p);
  }
}

int count_idle_cudalab(const std::string& gpu_uuid, const std::vector<long>& pids, const std::string& folder) {
  const Fd gpu_folder = open_existing_gpu_folder(folder, gpu_uuid);
  if (!gpu_folder) return 0;
  int idle = 0;
  for (const long pid : pids) {
    if (pid <= 0 || pid == ::getpid()) continue;
    const auto file = open_regular(gpu_folder.get(), present_name(pid));
    if (!file || !locked_by_someone(file->fd.get())) continue;
    const auto uid = process_uid(pid);
    if (uid && *uid == file->facts.owner) ++idle;
  }
  return idle;
}

}  // namespace cudalab
