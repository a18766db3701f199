// The class seal: proof that a run was measured by the class's own cudalab, made with a key that
// no student can read. The run's digest (integrity.hpp) has no secret, so anyone who edits a run
// can compute it again; the class seal is an HMAC-SHA256 over the same bytes, keyed by a file that
// only a dedicated group may read. The class's cudalab is installed setgid to that group (docs/
// grading.md, "The class seal"): at start, before it reads an argument or a file of the user's, it
// reads the key, drops the group for good, and makes itself non-dumpable, so that the user who
// runs it cannot ptrace it or read its memory. A build of the student's own, or a run resealed by
// hand, has no key and makes no class seal. Student code never runs in a process that holds the
// key: it runs in a child exec'd without new privileges (common/exercise/child_process.hpp).
//
// Where the key is read from: CUDALAB_CLASS_KEY_FILE, set when cudalab is built (cmake
// -DCUDALAB_CLASS_KEY=PATH), a relative path taken from the binary's own folder: by default
// ../etc/cudalab/class.key, so /usr/local/bin/cudalab reads /usr/local/etc/cudalab/class.key. A
// process started without privileges (no setgid or setuid at exec) may name another file in
// $CUDALAB_CLASS_KEY: a key the user can read anyway, as a test's or an instructor's own; a setgid
// process ignores it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/core/message.hpp"

namespace cudalab {

// A key is 32 to 1024 bytes: the file's bytes, a trailing newline left out.
inline constexpr std::size_t kMinClassKeyBytes = 32;
inline constexpr std::size_t kMaxClassKeyBytes = 1024;

// What main() does first. Reads the class key (unless `read_key` is false: the exercise child,
// which must hold nothing), then gives up every privilege the process was started with and, when
// it holds a key, makes itself non-dumpable. Returns an empty message when all went as it should,
// else one line saying what failed; the process must then stop at once (it may still hold a group). A missing
// key file is not a failure: the process then holds no key, and says so where a seal is checked.
Message take_class_key_at_start(bool read_key);

// The key this process holds: its fingerprint ("" when it holds none), 16 hex digits that name a
// key without revealing it (printed by `cudalab class check`, and in every class seal).
std::string held_class_key_id();

// Where the key was looked for, and why none is held when none is ("" when one is): for
// `cudalab class check`.
std::string class_key_path();
Message class_key_problem();

// Holds `key` as the class key (tests, with a key of their own; take_class_key_at_start).
// Returns false, holding nothing, when its length is out of range.
bool hold_class_key(std::string_view key);
// Wipes the key from memory: afterwards the process holds none.
void forget_class_key();

// "hmac-sha256:<key id>:<64 hex digits>" over the run's JSON form without its "digest" and
// "class_seal" members, with the held key; "" when none is held.
std::string make_class_seal(const nlohmann::json& run);

enum class ClassSeal {
  sealed,     // sealed with the key this process holds, and its seal matches the run
  none,       // the run carries no class seal
  other_key,  // sealed with a key this process does not hold
  broken,     // sealed with this key, but the seal does not match the run (edited, or forged)
  unknown,    // the run carries a seal, but this process holds no key to check it with
};

struct ClassSealVerdict {
  ClassSeal state = ClassSeal::none;
  std::string key_id;  // the key the run names, when it names one
  bool sealed() const { return state == ClassSeal::sealed; }
  // "sealed by the class (key 3f2a…)", or "not sealed by the class: why".
  Message describe() const;
};

// `raw` is the JSON object the run was read from.
ClassSealVerdict assess_class_seal(const nlohmann::json& raw);

}  // namespace cudalab
