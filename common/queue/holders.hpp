// Who holds a ticket, as the kernel tells it, for the queue's rules about turns that do not move
// (gpu_queue.hpp): the pid that holds a flock on a ticket's inode (/proc/locks), whether that
// process is stopped (/proc/PID/stat), and which users are instructors (a file the queue folder's
// owner keeps). Nothing here trusts what a ticket's text says.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace cudalab {

// (device, inode) of a locked file -> the pid the kernel lists as holding its flock. A pid the
// kernel cannot show in this process's pid namespace is left out (it prints 0 for it).
using FlockHolders = std::map<std::pair<dev_t, ino_t>, long>;

// Parses /proc/locks text: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF". Waiters ("->")
// and POSIX locks are skipped; a line that does not parse is skipped.
FlockHolders parse_proc_locks(std::string_view text);
// This host's flock holders now; empty when /proc/locks cannot be read.
FlockHolders read_flock_holders();

enum class ProcessState { running, stopped, gone, unknown };
// From the state letter of /proc/PID/stat text ("1234 (name) T ..."): T (stopped by a signal)
// and t (stopped by a tracer) are stopped; Z and X are gone.
ProcessState parse_process_state(std::string_view stat_text);
ProcessState process_state(long pid);

// CPU seconds (user + system) process `pid` has used, from /proc/PID/stat; nullopt when it is not
// visible. parse_cpu_ticks reads the ticks from the stat text.
std::optional<unsigned long long> parse_cpu_ticks(std::string_view stat_text);
std::optional<double> process_cpu_seconds(long pid);

// Whether this process lives in the host's own pid namespace (not a container's): only there are
// the pids NVML reports (the host's) the pids this process sees.
bool in_initial_pid_namespace();

// The users whose tickets go ahead of students: "instructors" in the queue folder, one user name
// or uid a line ('#' starts a comment), trusted only when it is a regular file owned by the
// folder's owner and writable by nobody else. `root_fd` is the open queue folder. Empty when the
// file is missing or not trusted; `why_not` says which, for the instructor.
std::set<uid_t> read_instructors(int root_fd, std::string* why_not = nullptr);

}  // namespace cudalab
