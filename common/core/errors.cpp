#include "common/core/errors.hpp"

#include <cstring>

namespace cudalab {

Message words_of(const std::exception& e) {
  if (const auto* ours = dynamic_cast<const Error*>(&e); ours != nullptr && ours->words()) return *ours->words();
  return Message::verbatim(e.what());
}

Message errno_words(int err) { return Message(std::string(std::strerror(err))); }

const char* exit_code_table() {
  return "Exit codes:\n"
         "  0    success\n"
         "  1    a verify check failed (results wrong), or an expect check failed with --strict;\n"
         "       show/compare/grade: a run failed, was modified, or is out of tolerance;\n"
         "       exercise: your file did not compile, or your code did not run to its end\n"
         "  2    usage error: bad flag, value, config file or output path\n"
         "  3    CUDA/CUPTI runtime error (including out of device memory)\n"
         "  77   waived: no usable CUDA device or driver, or the device lacks a needed feature\n"
         "  130  interrupted (Ctrl-C)\n"
         "  143  terminated (SIGTERM)\n";
}

}  // namespace cudalab
