// `cudalab completion bash|zsh|fish`: a completion script generated from the course and each
// lesson's flags, so it is never out of step with the binary.
#pragma once

#include <string>

namespace cudalab {

// Throws UsageError for a shell it does not know.
std::string completion_script(const std::string& shell);

}  // namespace cudalab
