// The file primitives of the GPU queue (gpu_queue.hpp). The queue lives in a folder that every
// user on the host can write, so it is hostile ground: anyone can leave a symlink, a FIFO, a
// file of garbage or a file named like a ticket there. Everything here is built so that none of
// that can hang, redirect or mislead a cudalab process:
//   - files are opened relative to an open folder, with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, and
//     only after lstat says "regular file"; the opened file is checked again with fstat;
//   - what a file holds is read up to a small limit and is only ever shown, never obeyed;
//   - what we do trust comes from the kernel: a file's owner uid and inode (fstat), and whether
//     someone holds a flock on it (flock locks belong to an open file and die with the process);
//   - we only ever remove files we own, and only after checking the name still names our inode.
// No CUDA here: the queue is taken before a process creates a CUDA context.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/errors.hpp"
#include "common/core/identity.hpp"

namespace cudalab {

// The queue folder cannot be used (not a folder, not writable, a file in it that cannot be
// opened): one line that says what and where, so the instructor can fix it.
struct QueueUnavailableError : RuntimeError {
  using RuntimeError::RuntimeError;
};

namespace queue_files {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// What the kernel says about a file: these are trusted, the file's contents are not.
struct FileFacts {
  dev_t device = 0;
  ino_t inode = 0;
  uid_t owner = 0;
};

struct OpenedFile {
  Fd fd;
  FileFacts facts;
};

// $CUDALAB_QUEUE_DIR when set and not empty, else /tmp/cudalab-queue.
std::string queue_root_path();

// Opens the folder at `path` (relative to `parent`, a folder descriptor or AT_FDCWD), creating it
// with mode 1777 when missing. Refused, with QueueUnavailableError naming `shown`: a symlink or
// anything but a folder; a folder without the sticky bit that we cannot fix (someone else owns
// it); a folder we cannot write into.
Fd open_shared_folder(int parent, const std::string& path, const std::string& shown);

// A GPU's folder name: 1 to 80 characters of [A-Za-z0-9-] (NVML's "GPU-xxxxxxxx-..." form).
bool valid_folder_name(std::string_view name);

// The queue folder `root` itself ("" means queue_root_path()), opened and created as
// open_shared_folder does. Throws QueueUnavailableError.
Fd open_queue_root(const std::string& root);

// The GPU's folder in the queue folder `root` ("" means queue_root_path()), both opened (and
// created when missing) by open_shared_folder. Throws QueueUnavailableError.
Fd open_gpu_folder(const std::string& root, const std::string& gpu_uuid);
// The same folder for a watcher that only looks: opened without following a symlink, nothing
// created or checked; an empty Fd when it is not there.
Fd open_existing_gpu_folder(const std::string& root, const std::string& gpu_uuid);

// The regular file `name` in folder `dir`, opened read-only without following a symlink and
// without blocking. nullopt when it is absent, a symlink, not a regular file, or unreadable.
std::optional<OpenedFile> open_regular(int dir, const std::string& name);

// The regular file `name` in `dir`, created (mode 0644) when missing. Throws
// QueueUnavailableError when it exists and cannot be opened as a regular file.
OpenedFile open_or_create(int dir, const std::string& name, const std::string& shown);

// Whether another open file holds a flock on the file (probed with a shared, non-blocking lock
// that is dropped at once).
bool locked_by_someone(int fd);

// Takes an exclusive flock without waiting; false when someone else holds one.
bool try_lock(int fd);
void unlock(int fd);

// At most `max_bytes` of the file from its start: for display only.
std::string read_head(int fd, std::size_t max_bytes);

// Creates `name` in `dir` holding `text`, already flock'ed (exclusive) by the returned
// descriptor, so it is never seen unlocked: it is written and locked under a temporary name
// first, then hard-linked into place, which fails when `name` exists. nullopt when it does.
std::optional<OpenedFile> create_locked(int dir, const std::string& name, std::string_view text);

// Replaces the whole text of a file we hold open (its readers may see a torn write; they only
// show what they read).
void rewrite(int fd, std::string_view text);

// Replaces the file `name` in `dir` with one holding `text` (mode 0644): written under a new
// temporary name first (never through a link someone left), then renamed over `name`, so a
// reader sees the old text or the new one, whole. False when it could not be done (in a sticky
// folder, another user's file of that name cannot be replaced).
bool replace_file(int dir, const std::string& name, std::string_view text);

// Removes `name` from `dir` when it still names the file `facts` describe and that file is ours
// (owned by this process's effective uid). True when removed.
bool remove_if_ours(int dir, const std::string& name, const FileFacts& facts);

// A folder with more entries than this is someone's garbage: only this many are looked at.
inline constexpr std::size_t kMaxFolderEntries = 65536;

// The names in `dir` (at most `max_entries`, "." and ".." left out).
std::vector<std::string> list_names(int dir, std::size_t max_entries);

// The login name of `uid` (core/identity.hpp), as the queue's messages name a ticket's owner.
using cudalab::user_name;

// The effective uid of process `pid`: the owner of /proc/PID. nullopt when it is not visible.
std::optional<uid_t> process_uid(long pid);

}  // namespace queue_files
}  // namespace cudalab
