// What a student's code may touch when the grader runs it (grade --rerun): the grader can read
// every hand-in of the class, so a re-run with the grader's rights could read classmates' code or
// write into the grader's home. The child confines itself with Landlock (the kernel's own
// unprivileged sandbox, Linux 5.13+) after it has started and before it loads the student's
// library: it may read and run the system (/usr, /lib*, /bin, /sbin, /etc, /sys), read and write
// /proc (the CUDA driver needs to), use the devices (/dev, the GPU's included), and read and write
// its own workspace; nothing else, no TCP, no signal or ptrace outside itself. What it cannot hold back: whatever lies under those system paths and is
// readable by the grader (keep the class's folders elsewhere: grade warns when one is not).
#pragma once

#include <string>

#include "common/core/message.hpp"

namespace cudalab {

// The environment variable the parent names the workspace in; set, the child confines itself.
inline constexpr const char* kConfineEnvironment = "CUDALAB_CONFINE_TO";

// The Landlock ABI this kernel offers; 0 when it offers none (too old, or turned off).
int landlock_abi();

// Confines this process (and what it starts) for good. Empty when it holds; else why not, one
// line. Needs no privilege; sets no_new_privs.
Message confine_to(const std::string& workspace);

// The system path a folder lies under, which the confined child may still read (/usr, /etc, /proc,
// /dev, ...); "" when none. For grade's warning about the class's own folder.
std::string readable_when_confined(const std::string& folder);

}  // namespace cudalab
