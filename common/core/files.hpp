// Files a student or a class hands us (runs, presets, answers) and files a run writes (--json,
// --trace, --svg, --dot) are opened so that nothing can hang or flood the process: only regular
// files, opened without blocking (a FIFO or a device is refused before anything waits on it),
// read up to a size limit and no further. Every problem is one printable line (UsageError).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/core/message.hpp"

namespace cudalab {

// The whole file, refused when it is not a regular file or is larger than `max_bytes`. `what`
// names it in messages, in words: "a saved run", "a preset file", "the answers file".
std::string read_regular_file(const std::string& path, std::size_t max_bytes, const Message& what);

// A file from someone else's folder (a class's drop folder): never read through a symbolic link,
// and with what the kernel says about it, which its owner cannot forge by writing the file.
struct UntrustedFile {
  std::string text;
  unsigned owner_uid = 0;  // the file's owner
  // Its status-change time (ctime), seconds since the epoch: the kernel sets it on every write,
  // rename or chmod, and no user can set it back (touch sets the modification time, not this).
  double changed_s = 0;
};

// As read_regular_file, but a symbolic link is refused too ("is a symbolic link"), and the
// file's owner and status-change time come with its text.
UntrustedFile read_untrusted_file(const std::string& path, std::size_t max_bytes, const Message& what);

// Empty when the run can write `path` (it is "-" and that is allowed, or a regular file or a new
// one in a writable folder), else why not, in one printable line. Nothing is left behind.
Message output_path_problem(std::string_view path, bool allow_stdout);

// Empty when `path` is a folder the run can write files into (or can be created in a writable one).
Message output_dir_problem(std::string_view path);

// Empty when `path` names a regular file that can be read; else why not, in words (a FIFO, a
// device, a directory, missing). Only stat and access: nothing is opened, so nothing can block.
Message input_file_problem(std::string_view path);

}  // namespace cudalab
