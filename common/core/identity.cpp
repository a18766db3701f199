#include "common/core/identity.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

std::string look_up_user(uid_t uid) {
  struct passwd entry {};
  struct passwd* found = nullptr;
  std::string buffer(16384, '\0');
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return printable_value(found->pw_name, 32);
  }
  return fmt::format("uid {}", uid);
}

}  // namespace

std::string user_name(uid_t uid) {
  static std::mutex mutex;
  static std::map<uid_t, std::string> known;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto it = known.find(uid);
  if (it != known.end()) return it->second;
  return known[uid] = look_up_user(uid);
}

std::string group_name(gid_t gid) {
  struct group entry {};
  struct group* found = nullptr;
  std::string buffer(16384, '\0');
  if (::getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return printable_value(found->gr_name, 32);
  }
  return fmt::format("gid {}", gid);
}

bool in_group(gid_t gid) {
  if (::getegid() == gid) return true;
  const int count = ::getgroups(0, nullptr);
  if (count <= 0) return false;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  const int got = ::getgroups(count, groups.data());
  return got > 0 && std::find(groups.begin(), groups.begin() + got, gid) != groups.begin() + got;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return printable_value(name, 64);
}

}  // namespace cudalab
