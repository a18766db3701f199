#include "common/exercise/student_library.hpp"

#include <dlfcn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstring>

// The C layout of the entry every interface header declares.
extern "C" {
struct cudalab_exercise_entry_t {
  const char* interface_name;
  int interface_version;
  const void* hooks;
};
}

namespace cudalab {

StudentLibrary::StudentLibrary(const std::string& path, const std::string& interface, int version) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    throw StudentLoadError(msg("your code could not be loaded: {why}", arg("why", std::string(why ? why : "?"))));
  }
  const auto* entry = static_cast<const cudalab_exercise_entry_t*>(::dlsym(handle, "cudalab_exercise_entry"));
  if (entry == nullptr) {
    throw StudentLoadError("your file has no CUDALAB_EXERCISE_ENTRY(...) line: keep the starter's last line");
  }
  const char* name = entry->interface_name;
  if (name == nullptr || std::strlen(name) > 64 || interface != name || entry->interface_version != version ||
      entry->hooks == nullptr) {
    throw StudentLoadError(msg("your library speaks {found} version {found_version}; the bench speaks {expected} "
                               "version {expected_version}",
                               arg("found", std::string(name != nullptr && std::strlen(name) <= 64 ? name : "?")),
                               arg("found_version", entry->interface_version), arg("expected", interface),
                               arg("expected_version", version)));
  }
  hooks_ = entry->hooks;
}

void drop_to_the_students_rights() {
  const gid_t real = ::getgid();
  if (::getegid() != real && ::setresgid(real, real, real) != 0) ::_exit(126);
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

}  // namespace cudalab
