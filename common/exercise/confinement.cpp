// Landlock for the grader's re-runs (confinement.hpp). The syscalls have no glibc wrappers; the
// ruleset's attribute grows with the ABI, so it is passed at the size this kernel knows.
#include "common/exercise/confinement.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/core/errors.hpp"
#include "common/core/owned_fd.hpp"

namespace cudalab {

namespace {

// The rights each ABI added to what a ruleset can handle (the kernel refuses a right it does not know).
constexpr std::uint64_t kFsRightsAbi1 = (1ULL << 13) - 1;  // execute ... make_sym
constexpr std::uint64_t kRefer = 1ULL << 13;               // ABI 2
constexpr std::uint64_t kTruncate = 1ULL << 14;            // ABI 3
constexpr std::uint64_t kIoctlDev = 1ULL << 15;            // ABI 5
constexpr std::uint64_t kNetRights = (1ULL << 0) | (1ULL << 1);  // ABI 4: bind and connect over TCP
constexpr std::uint64_t kScopes = (1ULL << 0) | (1ULL << 1);     // ABI 6: abstract sockets, signals

constexpr std::uint64_t kRead = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;

// The kernel's struct landlock_ruleset_attr, every field of the newest ABI this code knows.
struct RulesetAttr {
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};

std::uint64_t fs_rights(int abi) {
  std::uint64_t rights = kFsRightsAbi1;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

// Allows `rights` beneath `path`; a path this machine lacks (/lib32, /lib64) allows nothing.
Message allow(int ruleset, const std::string& path, std::uint64_t rights) {
  const OwnedFd dir(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (dir.get() < 0) return errno == ENOENT ? Message() : msg("{path}: {error}", arg("path", path), arg("error", errno_words(errno)));
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = dir.get();
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
    return msg("Landlock would not take {path}: {error}", arg("path", path), arg("error", errno_words(errno)));
  }
  return {};
}

// What the confined child may do beneath each system path, besides its own workspace (all rights).
// Each set is cut to the rights this kernel's ABI knows (`& all`).
struct Rule {
  const char* path;
  std::uint64_t rights;
};

const std::vector<Rule>& system_rules() {
  static const std::vector<Rule> rules = {
      {"/usr", kRead}, {"/lib", kRead}, {"/lib32", kRead}, {"/lib64", kRead}, {"/bin", kRead}, {"/sbin", kRead},
      {"/etc", kRead}, {"/sys", kRead},
      // The CUDA driver opens a file of /proc to write and truncate when it starts (measured on the
      // lab GPU: cuInit fails with no other right there). Landlock's own rule keeps the memory of any
      // process outside the sandbox closed (no ptrace, no /proc/PID/mem), whoever owns it.
      {"/proc", kRead | LANDLOCK_ACCESS_FS_WRITE_FILE | kTruncate},
      // The devices: the GPU's are opened read-write and driven by ioctl.
      {"/dev", kRead | LANDLOCK_ACCESS_FS_WRITE_FILE | kTruncate | kIoctlDev},
      // Shared memory, which the CUDA driver may make files in.
      {"/dev/shm", ~0ULL},
  };
  return rules;
}

}  // namespace

int landlock_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

Message confine_to(const std::string& workspace) {
  const int abi = landlock_abi();
  if (abi == 0) return "this kernel offers no Landlock, so the code cannot be confined";
  const std::uint64_t all = fs_rights(abi);
  RulesetAttr attr;
  attr.handled_access_fs = all;
  std::size_t size = sizeof attr.handled_access_fs;
  if (abi >= 4) attr.handled_access_net = kNetRights, size += sizeof attr.handled_access_net;
  if (abi >= 6) attr.scoped = kScopes, size += sizeof attr.scoped;
  const OwnedFd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
  if (ruleset.get() < 0) return msg("Landlock made no ruleset: {error}", arg("error", errno_words(errno)));
  for (const auto& rule : system_rules()) {
    if (Message problem = allow(ruleset.get(), rule.path, rule.rights & all); !problem.empty()) return problem;
  }
  if (Message problem = allow(ruleset.get(), workspace, all); !problem.empty()) return problem;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return msg("no_new_privs: {error}", arg("error", errno_words(errno)));
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
    return msg("Landlock did not confine the process: {error}", arg("error", errno_words(errno)));
  }
  return {};
}

std::string readable_when_confined(const std::string& folder) {
  for (const auto& rule : system_rules()) {
    const std::string path = rule.path;
    if (folder == path || folder.rfind(path + "/", 0) == 0) return path;
  }
  return {};
}

}  // namespace cudalab
