#include "cli/drop_folder.hpp"

#include <acl/libacl.h>
#include <fcntl.h>
#include <sys/acl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/identity.hpp"
#include "common/core/text_format.hpp"
#include "common/queue/queue_files.hpp"
#include "common/report/provenance.hpp"

namespace cudalab {

namespace {

using queue_files::Fd;

std::string quoted(const std::string& path) { return "'" + printable_value(path, 200) + "'"; }

std::string mode_of(const struct stat& st) { return fmt::format("{:04o}", st.st_mode & 07777); }

// True when the folder's default ACL gives others no read: every file made in it then hides from
// classmates whatever mode its maker asks for (a run copied in by hand with cp asks for 0644).
// libacl reads the ACL as the kernel keeps it (the system.posix_acl_default attribute).
bool default_acl_hides_from_others(const std::string& path) {
  const std::unique_ptr<void, int (*)(void*)> acl(acl_get_file(path.c_str(), ACL_TYPE_DEFAULT), acl_free);
  if (acl == nullptr) return false;
  acl_entry_t entry = nullptr;
  for (int which = ACL_FIRST_ENTRY; acl_get_entry(static_cast<acl_t>(acl.get()), which, &entry) == 1; which = ACL_NEXT_ENTRY) {
    acl_tag_t tag = ACL_UNDEFINED_TAG;
    acl_permset_t permissions = nullptr;
    if (acl_get_tag_type(entry, &tag) == 0 && tag == ACL_OTHER && acl_get_permset(entry, &permissions) == 0) {
      return acl_get_perm(permissions, ACL_READ) == 0;
    }
  }
  return false;  // no default ACL (an empty one has no entry for others)
}

// Why a folder with these facts is unsafe for this user, or an empty Message.
Message unsafe_because(const struct stat& st, const std::string& path) {
  const mode_t mode = st.st_mode;
  if ((mode & S_IROTH) != 0) return Message("anyone may list it, and so find the others' runs");
  if ((mode & S_ISVTX) == 0) return Message("it lacks the sticky bit, so others could remove or replace a run");
  if ((mode & S_ISGID) == 0) return Message("it lacks the setgid bit, so runs would not take the staff's group");
  if (st.st_uid != ::geteuid() && in_group(st.st_gid)) {
    return msg("you are in its group {group}, so everyone in that group could read the others' runs",
               arg("group", group_name(st.st_gid)));
  }
  if (!default_acl_hides_from_others(path)) {
    return Message("its default ACL does not hide new files from others, so a run copied in by hand could be read by "
                   "any classmate who knows its name");
  }
  return {};
}

// The folder, opened as a path only (it may not be listed) and never through a symlink, after
// checking it is safe; an empty Fd and `why` set otherwise.
Fd open_checked_folder(const std::string& path, Message& why) {
  if (path.empty()) {
    why = Message("no drop folder: set CUDALAB_CLASS_DIR, or drop = \"DIR\" under [grade] in the class preset (--config)");
    return Fd();
  }
  struct stat link {};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    why = msg("the drop folder {folder} is a symbolic link; name the folder itself", arg("folder", quoted(path)));
    return Fd();
  }
  Fd folder(::open(path.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!folder) {
    const int error = errno;
    if (error == ELOOP) {
      why = msg("the drop folder {folder} is a symbolic link; name the folder itself", arg("folder", quoted(path)));
    } else if (error == ENOTDIR) {
      why = msg("the drop folder {folder} is not a folder", arg("folder", quoted(path)));
    } else {
      why = msg("cannot open the drop folder {folder}: {why}; the instructor makes it with: install -d -m 3733 -g STAFF "
                "{folder} && setfacl -d -m u::rw,g::r,o::- {folder}",
                arg("folder", quoted(path)), arg("why", errno_words(error)));
    }
    return Fd();
  }
  struct stat st {};
  if (::fstat(folder.get(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = msg("the drop folder {folder} is not a folder", arg("folder", quoted(path)));
    return Fd();
  }
  const Message unsafe = unsafe_because(st, path);
  if (!unsafe.empty()) {
    why = msg("the drop folder {folder} is not safe to hand runs into: {reason} (mode {mode}, owner {owner}, group "
              "{group}); the instructor makes it with: install -d -m 3733 -g STAFF {folder} && setfacl -d -m u::rw,g::r,o::- "
              "{folder}",
              arg("folder", quoted(path)), arg("reason", unsafe), arg("mode", mode_of(st)),
              arg("owner", user_name(st.st_uid)), arg("group", group_name(st.st_gid)));
    return Fd();
  }
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    const int error = errno;
    why = msg("cannot hand runs into {folder}: {why} (mode {mode}, owner {owner})", arg("folder", quoted(path)),
              arg("why", errno_words(error)), arg("mode", mode_of(st)), arg("owner", user_name(st.st_uid)));
    return Fd();
  }
  return folder;
}

// Letters, digits, '.', '_' and '-' only: "uid 1001" -> "uid1001".
std::string name_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (ok) out += c;
  }
  return out.empty() ? "x" : out.substr(0, 40);
}

std::string file_name(const Report& report) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return fmt::format("{}-{:02d}-{}-{}-{}.json", name_part(user_name(::geteuid())), report.lesson_number,
                     name_part(report.lesson_slug), stamp, new_run_id().substr(0, 6));
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return ::fsync(fd) == 0;
}

// Written under a hidden name nobody can guess, then linked to `name`, which fails rather than
// replace a file: `grade` never sees a half-written run, and no run is ever overwritten.
bool link_new_file(int folder, const std::string& name, const std::string& text, Message& why) {
  const std::string hidden = ".handing-in-" + new_run_id();
  const Fd file(::openat(folder, hidden.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0640));
  if (!file) {
    why = errno_words(errno);
    return false;
  }
  // The umask may have taken the group's read bit: the staff must read the run.
  const bool written = ::fchmod(file.get(), 0640) == 0 && write_all(file.get(), text);
  if (!written) why = errno_words(errno);
  const bool linked = written && ::linkat(folder, hidden.c_str(), folder, name.c_str(), 0) == 0;
  const int link_error = errno;
  if (written && !linked) why = errno_words(link_error);
  const bool taken = written && !linked && link_error == EEXIST;
  ::unlinkat(folder, hidden.c_str(), 0);
  if (taken) why = Message();  // the name was taken: the caller tries another
  return linked;
}

}  // namespace

std::string drop_folder_path(const ClassSettings* settings) {
  if (settings != nullptr && !settings->drop.empty()) return settings->drop;
  const char* dir = std::getenv("CUDALAB_CLASS_DIR");
  return dir != nullptr ? std::string(dir) : std::string();
}

Message check_drop_folder(const std::string& path) {
  Message why;
  open_checked_folder(path, why);
  return why;
}

std::string hand_in(const std::string& path, const std::string& run_text, const Report& report) {
  Message why;
  const Fd folder = open_checked_folder(path, why);
  if (!folder) throw UsageError(why);
  for (int attempt = 0; attempt < 4; ++attempt) {
    const std::string name = file_name(report);
    if (link_new_file(folder.get(), name, run_text, why)) return name;
    if (!why.empty()) break;
  }
  throw UsageError(msg("cannot hand the run into {folder}: {why}", arg("folder", quoted(path)),
                       arg("why", why.empty() ? Message("no free name") : why)));
}

Message handed_in_line(const Report& report, const std::string& name, const std::string& path) {
  return msg("handed in {lesson} as {name} into {folder}",
             arg("lesson", fmt::format("{:02d}-{}", report.lesson_number, report.lesson_slug)), arg("name", name),
             arg("folder", printable_value(path, 200)));
}

}  // namespace cudalab
