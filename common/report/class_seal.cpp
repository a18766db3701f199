// The class key and the class seal (class_seal.hpp).
#include "common/report/class_seal.hpp"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/core/text_format.hpp"
#include "common/report/digest.hpp"
#include "common/report/integrity.hpp"

#ifndef CUDALAB_CLASS_KEY_FILE
#define CUDALAB_CLASS_KEY_FILE "../etc/cudalab/class.key"
#endif

namespace cudalab {

namespace {

constexpr std::string_view kSealPrefix = "hmac-sha256:";

// The one key of the process, in a fixed buffer that is wiped when it is forgotten (a std::string
// could leave copies behind as it grows).
struct HeldKey {
  std::array<char, kMaxClassKeyBytes> bytes{};
  std::size_t size = 0;
  std::string id;
  std::string path;
  Message problem = Message("no class key was looked for");
};

HeldKey& held() {
  static HeldKey key;
  return key;
}

std::string_view key_bytes() { return {held().bytes.data(), held().size}; }

// 16 hex digits that name the key: a hash of it, in a domain of its own so that it is not a MAC.
std::string fingerprint(std::string_view key) {
  Sha256 sha;
  sha.update("cudalab class key id\n");
  sha.update(key);
  return sha.finish_hex().substr(0, 16);
}

std::string errno_text(int error) { return std::strerror(error); }

// Reads the key file into the held key, or says why not. Never blocks (O_NONBLOCK: a FIFO put in
// the key's place), never follows a link, and reads one regular file of at most the key's size.
void read_key_file(HeldKey& k) {
  const MessageArg file = arg("file", printable_value(k.path));
  const int fd = ::open(k.path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int error = errno;
    k.problem = error == ENOENT ? msg("there is no class key at {file}", file)
                                : msg("the class key {file} cannot be read ({why})", file, arg("why", errno_text(error)));
    return;
  }
  struct stat st {};
  std::array<char, kMaxClassKeyBytes + 2> buffer{};
  ssize_t got = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= static_cast<off_t>(kMaxClassKeyBytes + 1)) {
    got = ::read(fd, buffer.data(), buffer.size());
  }
  ::close(fd);
  std::size_t size = got > 0 ? static_cast<std::size_t>(got) : 0;
  if (size > 0 && buffer[size - 1] == '\n') --size;
  if ((st.st_mode & S_IROTH) != 0) {
    k.problem = msg("the class key {file} can be read by every user: make it readable by its group only (chmod 0440)", file);
  } else if (got < 0 || size < kMinClassKeyBytes || size > kMaxClassKeyBytes) {
    k.problem = msg("the class key {file} is not a regular file of {min} to {max} bytes", file, arg("min", kMinClassKeyBytes),
                    arg("max", kMaxClassKeyBytes));
  } else {
    hold_class_key(std::string_view(buffer.data(), size));
  }
  OPENSSL_cleanse(buffer.data(), buffer.size());
}

// The key file this build reads: CUDALAB_CLASS_KEY_FILE, a relative one taken from the folder of
// the running binary as the kernel names it (/proc/self/exe), so that an install under PREFIX/bin
// reads PREFIX/etc/cudalab/class.key.
std::string built_in_key_path() {
  const std::filesystem::path built(CUDALAB_CLASS_KEY_FILE);
  if (built.is_absolute()) return built.string();
  std::error_code error;
  const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return built.string();
  return (binary.parent_path() / built).lexically_normal().string();
}

// Every id the process was started with becomes its real one, for good: a setgid install's group
// is gone before anything of the user's is read.
bool drop_privileges() {
  const gid_t gid = ::getgid();
  const uid_t uid = ::getuid();
  if (::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0) return false;
  gid_t rg = 0, eg = 0, sg = 0;
  uid_t ru = 0, eu = 0, su = 0;
  if (::getresgid(&rg, &eg, &sg) != 0 || ::getresuid(&ru, &eu, &su) != 0) return false;
  return rg == gid && eg == gid && sg == gid && ru == uid && eu == uid && su == uid;
}

}  // namespace

Message take_class_key_at_start(bool read_key) {
  HeldKey& k = held();
  // A process that exec gave privileges to (AT_SECURE: setgid, setuid) reads only the key it was
  // built to read; the environment is the user's.
  const bool privileged = ::getauxval(AT_SECURE) != 0;
  k.path = built_in_key_path();
  if (const char* own = std::getenv("CUDALAB_CLASS_KEY"); !privileged && own != nullptr && *own != '\0') k.path = own;
  forget_class_key();  // at start: only the key read now is held
  if (read_key) {
    read_key_file(k);
  } else {
    k.problem = Message("a process that runs a student's code holds no class key");
  }
  if (!drop_privileges()) {
    forget_class_key();
    return Message("cudalab: cannot give up the group it was installed with; stopping");
  }
  if (!k.id.empty() && ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    forget_class_key();
    return Message("cudalab: cannot make itself non-dumpable while it holds the class key; stopping");
  }
  return {};
}

std::string held_class_key_id() { return held().id; }
std::string class_key_path() { return held().path; }
Message class_key_problem() { return held().id.empty() ? held().problem : Message(); }

bool hold_class_key(std::string_view key) {
  forget_class_key();
  if (key.size() < kMinClassKeyBytes || key.size() > kMaxClassKeyBytes) return false;
  HeldKey& k = held();
  std::memcpy(k.bytes.data(), key.data(), key.size());
  k.size = key.size();
  k.id = fingerprint(key);
  return true;
}

void forget_class_key() {
  HeldKey& k = held();
  OPENSSL_cleanse(k.bytes.data(), k.bytes.size());
  k.size = 0;
  k.id.clear();
}

std::string make_class_seal(const nlohmann::json& run) {
  if (held().id.empty()) return {};
  HmacSha256 mac(key_bytes());
  HashingStream out(mac);
  write_covered_bytes(out, run, {"digest", "class_seal"});
  out.flush();
  return std::string(kSealPrefix) + held().id + ':' + mac.finish_hex();
}

Message ClassSealVerdict::describe() const {
  const MessageArg key = arg("key", key_id);
  switch (state) {
    case ClassSeal::sealed: return msg("sealed by the class (key {key})", key);
    case ClassSeal::none: return Message("not sealed by the class: it carries no class seal");
    case ClassSeal::other_key: return msg("not sealed by the class: sealed with another key ({key})", key);
    case ClassSeal::broken: return Message("not sealed by the class: its seal does not match its contents");
    case ClassSeal::unknown:
      return msg("not sealed by the class as far as this cudalab can tell: it holds no class key to check the seal (key {key}) with", key);
  }
  return "?";
}

ClassSealVerdict assess_class_seal(const nlohmann::json& raw) {
  ClassSealVerdict verdict;
  const auto found = raw.is_object() ? raw.find("class_seal") : raw.end();
  if (found == raw.end()) return verdict;
  const std::string seal = found->is_string() ? found->get<std::string>() : std::string();
  // "hmac-sha256:" + 16 hex digits + ":" + 64 hex digits; anything else names no key.
  const bool shaped = seal.size() == kSealPrefix.size() + 16 + 1 + 64 && seal.compare(0, kSealPrefix.size(), kSealPrefix) == 0 &&
                      seal[kSealPrefix.size() + 16] == ':' &&
                      seal.find_first_not_of("0123456789abcdef:", kSealPrefix.size()) == std::string::npos;
  if (!shaped) {
    verdict.state = ClassSeal::broken;
    return verdict;
  }
  verdict.key_id = seal.substr(kSealPrefix.size(), 16);
  if (held().id.empty()) {
    verdict.state = ClassSeal::unknown;
  } else if (verdict.key_id != held().id) {
    verdict.state = ClassSeal::other_key;
  } else {
    const std::string expected = make_class_seal(raw);
    verdict.state = CRYPTO_memcmp(expected.data(), seal.data(), seal.size()) == 0 ? ClassSeal::sealed : ClassSeal::broken;
  }
  return verdict;
}

}  // namespace cudalab
