#include "common/queue/queue_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_NOREPLACE
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab::queue_files {

namespace {

constexpr int kOpenFlags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

// The system's words for the errno just set.
Message why() { return errno_words(errno); }

FileFacts facts_of(const struct stat& st) { return {st.st_dev, st.st_ino, st.st_uid}; }

[[noreturn]] void unusable(const Message& problem) {
  throw QueueUnavailableError(
      msg("{problem}; ask the instructor to fix it, or set CUDALAB_QUEUE_DIR, or run with --no-queue",
          arg("problem", problem)));
}

// "tmp-<pid>-<serial>": a name no ticket or learned-turns file has, new within this process.
std::string temporary_name() {
  static std::atomic<unsigned> serial{0};
  return fmt::format("tmp-{}-{}", ::getpid(), serial++);
}

bool write_all(int fd, std::string_view text) {
  off_t offset = 0;
  while (!text.empty()) {
    const ssize_t n = ::pwrite(fd, text.data(), text.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
    offset += n;
  }
  return true;
}

}  // namespace

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

std::string queue_root_path() {
  const char* dir = std::getenv("CUDALAB_QUEUE_DIR");
  return dir != nullptr && *dir != '\0' ? std::string(dir) : std::string("/tmp/cudalab-queue");
}

// Makes the shared folder `path` already 01777 when anyone else can see it: under a private name,
// given its mode, then renamed into place without replacing one that another user made meanwhile.
// A folder made in place would show the umask's mode (1755) until its maker's chmod, and a student
// who looked in that moment was refused (seen on the lab GPU: one of a class of 8). True when this
// call made it; false with errno EEXIST when it was there.
bool create_shared_folder(int parent, const std::string& path) {
  const std::string private_name = path + ".new-" + std::to_string(::getpid());
  if (::mkdirat(parent, private_name.c_str(), 0700) != 0) return false;
  if (::fchmodat(parent, private_name.c_str(), 01777, 0) == 0 &&
      ::renameat2(parent, private_name.c_str(), parent, path.c_str(), RENAME_NOREPLACE) == 0) {
    return true;
  }
  const int err = errno;
  ::unlinkat(parent, private_name.c_str(), AT_REMOVEDIR);
  errno = err;
  return false;
}

Fd open_shared_folder(int parent, const std::string& path, const std::string& shown) {
  const bool created = create_shared_folder(parent, path);
  if (!created && errno != EEXIST) {
    unusable(msg("cannot create the GPU queue folder {folder}: {reason}", arg("folder", shown), arg("reason", why())));
  }
  Fd folder(::openat(parent, path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!folder) {
    unusable(msg("the GPU queue folder {folder} cannot be opened as a folder: {reason}", arg("folder", shown),
                 arg("reason", why())));
  }
  struct stat st {};
  if (::fstat(folder.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    unusable(msg("the GPU queue folder {folder} is not a folder", arg("folder", shown)));
  }
  // The umask took bits off a folder we just made, or a user of ours made it without the sticky
  // bit: put the mode right (only the owner can).
  if (st.st_uid == ::geteuid() && (created || (st.st_mode & S_ISVTX) == 0)) {
    if (::fchmod(folder.get(), 01777) == 0) st.st_mode = S_IFDIR | 01777;
  }
  // Without the sticky bit, anyone who can write the folder could remove our tickets.
  if ((st.st_mode & S_ISVTX) == 0) {
    unusable(msg("the GPU queue folder {folder} lacks the sticky bit (mode {mode}, owned by {owner})",
                 arg("folder", shown), arg("mode", fmt::format("{:o}", st.st_mode & 07777)),
                 arg("owner", user_name(st.st_uid))));
  }
  if (::faccessat(folder.get(), ".", W_OK | X_OK, AT_EACCESS) != 0) {
    unusable(msg("cannot write into the GPU queue folder {folder} (mode {mode}, owned by {owner})",
                 arg("folder", shown), arg("mode", fmt::format("{:o}", st.st_mode & 07777)),
                 arg("owner", user_name(st.st_uid))));
  }
  return folder;
}

bool valid_folder_name(std::string_view name) {
  if (name.empty() || name.size() > 80) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

Fd open_queue_root(const std::string& root) {
  const std::string path = root.empty() ? queue_root_path() : root;
  return open_shared_folder(AT_FDCWD, path, printable_value(path));
}

Fd open_gpu_folder(const std::string& root, const std::string& gpu_uuid) {
  if (!valid_folder_name(gpu_uuid)) {
    throw QueueUnavailableError(msg("not a GPU UUID for the queue: {uuid}", arg("uuid", printable_value(gpu_uuid))));
  }
  const std::string path = root.empty() ? queue_root_path() : root;
  const Fd root_folder = open_queue_root(root);
  return open_shared_folder(root_folder.get(), gpu_uuid, printable_value(path + "/" + gpu_uuid));
}

Fd open_existing_gpu_folder(const std::string& root, const std::string& gpu_uuid) {
  if (!valid_folder_name(gpu_uuid)) return Fd();
  constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  const Fd root_folder(::open((root.empty() ? queue_root_path() : root).c_str(), kFolderFlags));
  if (!root_folder) return Fd();
  return Fd(::openat(root_folder.get(), gpu_uuid.c_str(), kFolderFlags));
}

std::optional<OpenedFile> open_regular(int dir, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  Fd fd(::openat(dir, name.c_str(), O_RDONLY | kOpenFlags));
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return OpenedFile{std::move(fd), facts_of(st)};
}

OpenedFile open_or_create(int dir, const std::string& name, const std::string& shown) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (auto file = open_regular(dir, name)) return std::move(*file);
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      unusable(msg("{file} is not a regular file cudalab can open (owned by {owner})", arg("file", shown),
                   arg("owner", user_name(st.st_uid))));
    }
    // Created only when missing (O_EXCL): with fs.protected_regular, O_CREAT on another user's
    // file in a sticky folder is refused even when the file could be opened.
    Fd fd(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_EXCL | kOpenFlags, 0644));
    if (fd) {
      ::fchmod(fd.get(), 0644);
      if (::fstat(fd.get(), &st) != 0) break;
      return OpenedFile{std::move(fd), facts_of(st)};
    }
    if (errno != EEXIST) unusable(msg("cannot create {file}: {reason}", arg("file", shown), arg("reason", why())));
  }
  unusable(msg("cannot open {file}", arg("file", shown)));
}

bool locked_by_someone(int fd) {
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

bool try_lock(int fd) { return ::flock(fd, LOCK_EX | LOCK_NB) == 0; }

void unlock(int fd) { ::flock(fd, LOCK_UN); }

std::string read_head(int fd, std::size_t max_bytes) {
  std::string text(max_bytes, '\0');
  std::size_t got = 0;
  while (got < max_bytes) {
    const ssize_t n = ::pread(fd, text.data() + got, max_bytes - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

std::optional<OpenedFile> create_locked(int dir, const std::string& name, std::string_view text) {
  std::string temporary;
  Fd fd;
  for (int attempt = 0; attempt < 16 && !fd; ++attempt) {
    temporary = temporary_name();
    fd = Fd(::openat(dir, temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | kOpenFlags, 0644));
    if (!fd && errno != EEXIST) break;
  }
  if (!fd) {
    throw QueueUnavailableError(msg("cannot create a file in the GPU queue folder: {reason}", arg("reason", why())));
  }
  struct stat st {};
  const bool ready = ::fchmod(fd.get(), 0644) == 0 && write_all(fd.get(), text) &&
                     ::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 && ::fstat(fd.get(), &st) == 0;
  const bool linked = ready && ::linkat(dir, temporary.c_str(), dir, name.c_str(), 0) == 0;
  const int link_errno = errno;
  ::unlinkat(dir, temporary.c_str(), 0);
  if (linked) return OpenedFile{std::move(fd), facts_of(st)};
  if (ready && link_errno == EEXIST) return std::nullopt;
  errno = link_errno;
  throw QueueUnavailableError(msg("cannot place a file in the GPU queue folder: {reason}", arg("reason", why())));
}

void rewrite(int fd, std::string_view text) {
  if (!write_all(fd, text) || ::ftruncate(fd, static_cast<off_t>(text.size())) != 0) {
    throw QueueUnavailableError(msg("cannot write a file in the GPU queue folder: {reason}", arg("reason", why())));
  }
}

bool replace_file(int dir, const std::string& name, std::string_view text) {
  const std::string temporary = temporary_name();
  Fd fd(::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | kOpenFlags, 0644));
  if (!fd) return false;
  const bool written = ::fchmod(fd.get(), 0644) == 0 && write_all(fd.get(), text);
  if (written && ::renameat(dir, temporary.c_str(), dir, name.c_str()) == 0) return true;
  ::unlinkat(dir, temporary.c_str(), 0);
  return false;
}

bool remove_if_ours(int dir, const std::string& name, const FileFacts& facts) {
  struct stat st {};
  if (facts.owner != ::geteuid() || ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  if (st.st_dev != facts.device || st.st_ino != facts.inode || st.st_uid != ::geteuid()) return false;
  return ::unlinkat(dir, name.c_str(), 0) == 0;
}

std::vector<std::string> list_names(int dir, std::size_t max_entries) {
  std::vector<std::string> names;
  const int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  DIR* listing = ::fdopendir(fd);
  if (listing == nullptr) {
    ::close(fd);
    return names;
  }
  while (names.size() < max_entries) {
    const dirent* entry = ::readdir(listing);
    if (entry == nullptr) break;
    const std::string_view name(entry->d_name);
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(listing);
  return names;
}

std::optional<uid_t> process_uid(long pid) {
  struct stat st {};
  if (pid <= 0 || ::stat(fmt::format("/proc/{}", pid).c_str(), &st) != 0) return std::nullopt;
  return st.st_uid;
}

}  // namespace cudalab::queue_files
