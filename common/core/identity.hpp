// Who and where a process is, as the kernel and the system's databases say: the login name of a
// uid and the host name. Shared by the GPU queue (whose turn it is) and the runs' provenance.
#pragma once

#include <sys/types.h>

#include <string>

namespace cudalab {

// The login name of `uid` from the password database (printable, at most 32 characters), or
// "uid N" when it has none. Looked up once per uid: the database may be a network service.
std::string user_name(uid_t uid);

// The name of group `gid` from the group database, or "gid N" when it has none.
std::string group_name(gid_t gid);

// Whether this process belongs to group `gid` (its effective group or a supplementary one).
bool in_group(gid_t gid);

// This machine's host name (printable, at most 64 characters); "" when it cannot be read.
std::string host_name();

}  // namespace cudalab
