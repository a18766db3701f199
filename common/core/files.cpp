#include "common/core/files.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/owned_fd.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

Message kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return Message("a directory");
  if (S_ISFIFO(mode)) return Message("a FIFO");
  if (S_ISCHR(mode) || S_ISBLK(mode)) return Message("a device");
  if (S_ISSOCK(mode)) return Message("a socket");
  return Message("not a regular file");
}

std::string quoted(std::string_view path) { return "'" + printable_value(path) + "'"; }

// The kernel's own file systems (/proc, /sys, ...): their files look regular and root may even
// open them for writing, but a run written there is lost or refused only after it was measured.
// nullptr for an ordinary file system.
const char* kernel_file_system(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return nullptr;
  static const struct {
    decltype(fs.f_type) magic;
    const char* name;
  } kKernel[] = {{PROC_SUPER_MAGIC, "procfs"},   {SYSFS_MAGIC, "sysfs"},         {DEBUGFS_MAGIC, "debugfs"},
                 {TRACEFS_MAGIC, "tracefs"},     {SECURITYFS_MAGIC, "securityfs"}, {CGROUP_SUPER_MAGIC, "cgroupfs"},
                 {CGROUP2_SUPER_MAGIC, "cgroup2"}, {DEVPTS_SUPER_MAGIC, "devpts"}, {BPF_FS_MAGIC, "bpffs"},
                 {PSTOREFS_MAGIC, "pstore"},     {EFIVARFS_MAGIC, "efivarfs"}};
  for (const auto& k : kKernel) {
    if (fs.f_type == k.magic) return k.name;
  }
  return nullptr;
}

}  // namespace

namespace {

// Everything up to `max_bytes` from an open regular file, which `info` describes.
std::string read_opened(int fd, const struct stat& info, const std::string& name, std::size_t max_bytes,
                        const Message& what) {
  const auto too_large = [&] {
    return UsageError(msg("{file} is too large for {what} (over {limit})", arg("file", name), arg("what", what),
                          arg("limit", format_bytes(max_bytes))));
  };
  if (static_cast<std::size_t>(info.st_size) > max_bytes) throw too_large();
  std::string text;
  text.reserve(static_cast<std::size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0 && errno == EINTR) {
      throw_if_interrupted();
      continue;
    }
    if (got < 0) {
      const int err = errno;
      throw UsageError(msg("cannot read {file}: {reason}", arg("file", name), arg("reason", errno_words(err))));
    }
    if (text.size() + static_cast<std::size_t>(got) > max_bytes) throw too_large();
    text.append(buffer, static_cast<std::size_t>(got));
  }
  return text;
}

constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;

// "cannot open 'x': <errno's words>", for the errno just set.
UsageError cannot_open(const std::string& name) {
  const int err = errno;
  return UsageError(msg("cannot open {file}: {reason}", arg("file", name), arg("reason", errno_words(err))));
}

// "'x' is a directory, not a saved run".
UsageError is_not(const std::string& name, mode_t mode, const Message& what) {
  return UsageError(
      msg("{file} is {kind}, not {what}", arg("file", name), arg("kind", kind_of(mode)), arg("what", what)));
}

}  // namespace

std::string read_regular_file(const std::string& path, std::size_t max_bytes, const Message& what) {
  const std::string name = quoted(path);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw cannot_open(name);
  // A FIFO or a device would block the read or never end: refuse before opening it.
  if (!S_ISREG(info.st_mode)) throw is_not(name, info.st_mode, what);
  const OwnedFd fd(::open(path.c_str(), kReadFlags));
  if (fd.get() < 0) throw cannot_open(name);
  // The file may have been swapped between stat and open: check what was opened.
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw UsageError(msg("{file} is not a regular file, not {what}", arg("file", name), arg("what", what)));
  }
  return read_opened(fd.get(), info, name, max_bytes, what);
}

UntrustedFile read_untrusted_file(const std::string& path, std::size_t max_bytes, const Message& what) {
  const std::string name = quoted(path);
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) throw cannot_open(name);
  if (S_ISLNK(info.st_mode)) {
    throw UsageError(msg("{file} is a symbolic link, not {what}", arg("file", name), arg("what", what)));
  }
  if (!S_ISREG(info.st_mode)) throw is_not(name, info.st_mode, what);
  const OwnedFd fd(::open(path.c_str(), kReadFlags | O_NOFOLLOW));
  if (fd.get() < 0) throw cannot_open(name);
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    throw UsageError(msg("{file} is not a regular file, not {what}", arg("file", name), arg("what", what)));
  }
  UntrustedFile file;
  file.text = read_opened(fd.get(), info, name, max_bytes, what);
  file.owner_uid = info.st_uid;
  file.changed_s = static_cast<double>(info.st_ctim.tv_sec) + 1e-9 * static_cast<double>(info.st_ctim.tv_nsec);
  return file;
}

Message output_path_problem(std::string_view path, bool allow_stdout) {
  if (path == "-") {
    return allow_stdout ? Message() : Message("needs a file name ('-' would mix it into the report on stdout)");
  }
  if (path.empty()) return Message("needs a file name");
  const std::string p(path);
  struct stat info {};
  if (::stat(p.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) {
      return msg("cannot write {file}: it is {kind}", arg("file", quoted(path)), arg("kind", kind_of(info.st_mode)));
    }
    if (const char* kernel = kernel_file_system(p)) {
      return msg("cannot write {file}: it is a file of the kernel ({file_system}), not a place for a run",
                 arg("file", quoted(path)), arg("file_system", std::string(kernel)));
    }
    // O_NONBLOCK: the file may have become a FIFO since the stat; an open must never wait.
    const OwnedFd fd(::open(p.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) {
      return msg("cannot write {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
    }
    return {};
  }
  // A new file: create it exclusively to prove the folder takes it, then leave nothing behind.
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    return msg("cannot write {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
  }
  ::close(fd);
  ::unlink(p.c_str());
  return {};
}

Message output_dir_problem(std::string_view path) {
  if (path.empty()) return Message("needs a directory name");
  const std::string p(path);
  struct stat info {};
  if (::stat(p.c_str(), &info) == 0) {
    if (!S_ISDIR(info.st_mode)) {
      return msg("{file} is {kind}, not a directory", arg("file", quoted(path)), arg("kind", kind_of(info.st_mode)));
    }
    if (const char* kernel = kernel_file_system(p)) {
      return msg("cannot write into {file}: it is a folder of the kernel ({file_system})", arg("file", quoted(path)),
                 arg("file_system", std::string(kernel)));
    }
    if (::access(p.c_str(), W_OK | X_OK) != 0) {
      return msg("cannot write into {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
    }
    return {};
  }
  // Not there yet: make it to prove it can be made (a name too long, a dangling symlink, a
  // missing or read-only folder all fail here), then leave nothing behind.
  if (::mkdir(p.c_str(), 0755) != 0) {
    return msg("cannot create {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
  }
  ::rmdir(p.c_str());
  return {};
}

Message input_file_problem(std::string_view path) {
  if (path.empty()) return Message("needs a file name");
  const std::string p(path);
  struct stat info {};
  if (::stat(p.c_str(), &info) != 0) {
    return msg("cannot open {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    return msg("{file} is {kind}, not a file to read", arg("file", quoted(path)), arg("kind", kind_of(info.st_mode)));
  }
  if (::access(p.c_str(), R_OK) != 0) {
    return msg("cannot read {file}: {reason}", arg("file", quoted(path)), arg("reason", errno_words(errno)));
  }
  return {};
}

}  // namespace cudalab
